import Codec
import Domain

/// Decode → fold → encode for one input partition: the path every record takes, shared by
/// `tripstream replay` (files) and the Kafka runtime. Bad records become dead letters with the
/// original bytes and a reason; nothing throws out of here.
public struct InputProcessor: Sendable {
    public var fold: PartitionFold
    public var counters = ProcessorCounters()
    /// For a replay of files: the file each topic's records are read from, by topic. Their dead letters name
    /// the file and the line (`RecordSource.offset` holds the line), not an offset.
    public var sourceFiles: [String: String] = [:]
    private var events: [Event] = []
    /// Geofence JSON encoded once per geofence, not once per event.
    private var geofenceFragments = GeofenceFragments()

    /// - Parameter geofenceFragments: geofence JSON encoded already (`GeofenceFragments(encodingAll:)`,
    ///   shared by the partitions of a replay); by default each processor encodes its own as events need them.
    public init(settings: FoldSettings, history: any HistoryStore = MemoryHistoryStore(),
                geofenceFragments: GeofenceFragments = GeofenceFragments())
    {
        fold = PartitionFold(settings: settings, history: history)
        self.geofenceFragments = geofenceFragments
        events.reserveCapacity(64)
    }

    /// Places the late inputs queued now (one refold per user): before states are persisted, and at the end.
    public mutating func settle(geofences: GeofenceTable, processingTime: UnixMillis?, into output: inout OutputBatch) {
        // Called even with nothing to place: it also ends the fold's batch (see `PartitionFold.settle`).
        let now = processingTime ?? fold.streamTime
        fold.settle(geofences: geofences, processingTime: now, events: &events)
        emitEvents(now: now, into: &output)
    }

    /// Ends a batch of inputs, leaving late inputs queued (`PartitionFold.endBatch`).
    public mutating func endBatch() { fold.endBatch() }

    /// Decodes and folds one fix record.
    /// - Parameter processingTime: nil in a file replay: the stream time is used instead, which
    ///   makes a replay's output independent of the wall clock.
    public mutating func processFix(key: [UInt8]?, value: UnsafeRawBufferPointer, source: RecordSource,
                                    geofences: GeofenceTable, processingTime: UnixMillis?, into output: inout OutputBatch)
    {
        guard let fix = decodeFix(key: key, value: value, source: source, processingTime: processingTime,
                                  into: &output)
        else { return }
        process(fix, key: key, value: value, source: source, geofences: geofences, processingTime: processingTime,
                into: &output)
    }

    /// Folds an input decoded earlier (the Kafka runtime reads event times to merge its two input
    /// streams); one that did not decode becomes its dead letter here, at its turn.
    /// - Parameter recordTime: the record's Kafka timestamp, nil when it has none (see `rejectIfAhead`).
    public mutating func process(_ input: DecodedInput, key: [UInt8]?, value: UnsafeRawBufferPointer,
                                 source: RecordSource, geofences: GeofenceTable, processingTime: UnixMillis?,
                                 recordTime: UnixMillis? = nil, into output: inout OutputBatch)
    {
        counters.recordsIn += 1
        switch input {
        case let .fix(fix):
            if rejectIfAhead(fix.createdAt, of: recordTime, key: key, value: value, source: source,
                             processingTime: processingTime, into: &output) { return }
            process(fix, key: key, value: value, source: source, geofences: geofences,
                    processingTime: processingTime, into: &output)
        case let .command(command):
            if rejectIfAhead(command.createdAt, of: recordTime, key: key, value: value, source: source,
                             processingTime: processingTime, into: &output) { return }
            process(command, key: key, value: value, source: source, geofences: geofences,
                    processingTime: processingTime, into: &output)
        case let .invalid(error):
            deadLetter(error.reason, error.detail, key: key, value: value, source: source,
                       at: processingTime ?? fold.streamTime, into: &output)
        }
    }

    /// Decodes a fix record; a bad one becomes a dead letter and nil.
    public mutating func decodeFix(key: [UInt8]?, value: UnsafeRawBufferPointer, source: RecordSource,
                                   processingTime: UnixMillis?, into output: inout OutputBatch) -> Fix?
    {
        counters.recordsIn += 1
        do {
            return try FixDecoder.decode(value)
        } catch {
            deadLetter(error.reason, error.detail, key: key, value: value, source: source,
                       at: processingTime ?? fold.streamTime, into: &output)
            return nil
        }
    }

    /// Folds a decoded fix (`value` is its original record, for a dead letter). A fix whose record
    /// `key` is not its `userId` is dead-lettered `key_mismatch` (nil: no key, as in a file replay).
    public mutating func process(_ fix: Fix, key: [UInt8]?, value: UnsafeRawBufferPointer, source: RecordSource,
                                 geofences: GeofenceTable, processingTime: UnixMillis?, into output: inout OutputBatch)
    {
        if let key, let detail = Self.keyMismatch(key, userId: fix.userId) {
            deadLetter(.keyMismatch, detail, key: key, value: value, source: source,
                       at: processingTime ?? fold.streamTime, into: &output)
            return
        }
        let now = processingTime ?? max(fold.streamTime, fix.createdAt)
        let result = fold.process(fix, geofences: geofences, processingTime: now, events: &events)
        finish(result, key: key, value: value, source: source, now: now, into: &output)
    }

    /// Decodes a trip-command record (`value` nil: a null value); a bad one becomes a dead letter and nil.
    public mutating func decodeCommand(key: [UInt8]?, value: UnsafeRawBufferPointer?, source: RecordSource,
                                       processingTime: UnixMillis?, into output: inout OutputBatch) -> TripCommand?
    {
        counters.recordsIn += 1
        do throws(DecodeError) {
            guard let value else { throw .nullValue }
            return try TripCommandDecoder.decode(value)
        } catch {
            deadLetter(error.reason, error.detail, key: key, value: value ?? UnsafeRawBufferPointer(start: nil, count: 0),
                       source: source, at: processingTime ?? fold.streamTime, into: &output)
            return nil
        }
    }

    /// Folds a decoded trip command; one whose record `key` is not its `userId` is dead-lettered
    /// `key_mismatch` (nil: no key, as in a file replay).
    public mutating func process(_ command: TripCommand, key: [UInt8]?, value: UnsafeRawBufferPointer,
                                 source: RecordSource, geofences: GeofenceTable, processingTime: UnixMillis?,
                                 into output: inout OutputBatch)
    {
        if let key, let detail = Self.keyMismatch(key, userId: command.userId) {
            deadLetter(.keyMismatch, detail, key: key, value: value, source: source,
                       at: processingTime ?? fold.streamTime, into: &output)
            return
        }
        countUnknownDestinations(of: command, in: geofences)
        let now = processingTime ?? max(fold.streamTime, command.createdAt)
        let result = fold.process(command, geofences: geofences, processingTime: now, events: &events)
        finish(result, key: key, value: value, source: source, now: now, into: &output)
    }

    /// Counts a command whose trip or legs name a destination geofence that `geofences` lacks (bad setup, said
    /// by `SetupWarnings`): the fold takes it all the same.
    private mutating func countUnknownDestinations(of command: TripCommand, in geofences: GeofenceTable) {
        var named = [(command.trip.destinationGeofenceTag, command.trip.destinationGeofenceExternalId)]
        for leg in command.trip.legs ?? [] { named.append((leg.destinationGeofenceTag, leg.destinationGeofenceExternalId)) }
        for case let (tag?, externalId?) in named where geofences.geofence(tag: tag, externalId: externalId) == nil {
            counters.unknownDestinations += 1
            if counters.unknownDestinationExample == nil { counters.unknownDestinationExample = "\(tag)/\(externalId)" }
            return  // one per command
        }
    }

    /// Dead-letters a decoded record the caller refuses (e.g. a fix whose clock the stream refuted).
    public mutating func reject(_ reason: RejectionReason, _ detail: String, key: [UInt8]?,
                                value: UnsafeRawBufferPointer, source: RecordSource, processingTime: UnixMillis?,
                                into output: inout OutputBatch)
    {
        fold.counters.rejected[reason, default: 0] += 1
        deadLetter(reason, detail, key: key, value: value, source: source, at: processingTime ?? fold.streamTime,
                   into: &output)
    }

    /// The future-clock rule every mode shares: an input dated more than `maxClockSkew` after its
    /// record's timestamp (when the producer sent it, or the broker appended it) comes from a device
    /// clock that is wrong. It is dead-lettered `future_timestamp` before the fold sees it, so it
    /// moves no clock and never becomes its user's newest input. Decided by the record alone, so
    /// `run` and the replays of the topics and of an archive decide alike, whatever the wall clock.
    /// - Returns: whether the input was dead-lettered. A record without a timestamp (nil, or the
    ///   -1 Kafka gives for none) is never.
    public mutating func rejectIfAhead(_ time: UnixMillis, of recordTime: UnixMillis?, key: [UInt8]?,
                                       value: UnsafeRawBufferPointer, source: RecordSource,
                                       processingTime: UnixMillis?, into output: inout OutputBatch) -> Bool
    {
        guard let recordTime, recordTime >= 0, time > recordTime &+ fold.settings.maxClockSkew else { return false }
        let ahead = (time - recordTime) / 1000
        reject(.futureTimestamp, "createdAt is \(ahead) s ahead of its record's timestamp", key: key, value: value,
               source: source, processingTime: processingTime, into: &output)
        return true
    }

    /// Why a record keyed `key` cannot carry `userId`, or nil when the key is the userId's UTF-8.
    /// Fixes and commands are partitioned by key: one keyed otherwise lands in another user's
    /// partition, where folding it would split that user's state between two owners.
    static func keyMismatch(_ key: [UInt8], userId: String) -> String? {
        if key.elementsEqual(userId.utf8) { return nil }
        // The key may be anything: show it with control characters escaped, and not too much of it.
        var shown = ""
        for scalar in String(decoding: key.prefix(300), as: UTF8.self).unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return "record key \"\(shown)\"\(key.count > 300 ? "…" : "") (\(key.count) bytes) is not the userId \"\(userId)\""
    }

    /// Dead-letters a record that could not be read at all (e.g. a line over the size limit).
    public mutating func rejectUnreadable(_ reason: RejectionReason, _ detail: String, source: RecordSource,
                                          processingTime: UnixMillis?, into output: inout OutputBatch)
    {
        counters.recordsIn += 1
        deadLetter(reason, detail, key: nil, value: UnsafeRawBufferPointer(start: nil, count: 0), source: source,
                   at: processingTime ?? fold.streamTime, into: &output)
    }

    /// Applies one geofence-topic record to `geofences` (an upsert, or a delete for a null value).
    public mutating func processGeofence(key: [UInt8]?, value: UnsafeRawBufferPointer?, source: RecordSource,
                                         geofences: inout GeofenceTable, processingTime: UnixMillis?,
                                         into output: inout OutputBatch)
    {
        if let change = decodeGeofence(key: key, value: value, source: source, processingTime: processingTime,
                                       into: &output)
        {
            geofences.apply(change)
        }
    }

    /// Decodes and counts one geofence-topic record; a bad one becomes a dead letter and nil.
    public mutating func decodeGeofence(key: [UInt8]?, value: UnsafeRawBufferPointer?, source: RecordSource,
                                        processingTime: UnixMillis?, into output: inout OutputBatch) -> GeofenceChange?
    {
        counters.recordsIn += 1
        let keyText = key.map { String(decoding: $0, as: UTF8.self) }
        do {
            let change = try GeofenceDecoder.decode(key: keyText, value: value)
            switch change {
            case .upsert: counters.geofenceUpserts += 1
            case .delete: counters.geofenceDeletes += 1
            }
            return change
        } catch {
            deadLetter(error.reason, error.detail, key: key, value: value ?? UnsafeRawBufferPointer(start: nil, count: 0),
                       source: source, at: processingTime ?? fold.streamTime, into: &output)
            return nil
        }
    }

    /// Moves stream time on (a quiet partition, or the end of a replay) so due timers fire.
    public mutating func advanceStreamTime(to time: UnixMillis, geofences: GeofenceTable, processingTime: UnixMillis?,
                                           into output: inout OutputBatch)
    {
        let now = processingTime ?? time
        settle(geofences: geofences, processingTime: now, into: &output)
        fold.advanceStreamTime(to: time, geofences: geofences, processingTime: now, events: &events)
        emitEvents(now: now, into: &output)
    }

    private mutating func finish(_ result: PartitionFold.Result, key: [UInt8]?, value: UnsafeRawBufferPointer,
                                 source: RecordSource, now: UnixMillis, into output: inout OutputBatch)
    {
        if case let .rejected(reason, detail) = result {
            deadLetter(reason, detail, key: key, value: value, source: source, at: now, into: &output)
        }
        emitEvents(now: now, into: &output)
    }

    /// `PartitionFold.prefetch` for a fix folded a few inputs later. Mutating only so that it is
    /// called in place: read from a class's property, the fold was copied first (every array it holds
    /// retained and released).
    @inline(__always)
    public mutating func prefetch(userHash: UInt64, location: Coordinate?, geofences: GeofenceTable,
                                  stage: PartitionFold.PrefetchStage)
    {
        fold.prefetch(userHash: userHash, location: location, geofences: geofences, stage: stage)
    }

    private mutating func emitEvents(now: UnixMillis, into output: inout OutputBatch) {
        guard !events.isEmpty else { return }
        // Encoded in place through a buffer pointer: copying each `Event` out of the array would
        // retain and release every reference it holds.
        var pending: [Event] = []
        swap(&pending, &events)
        pending.withUnsafeMutableBufferPointer { list in
            // The geofences' JSON first, for all of a fix's events at once (`prefetchJSON`); not the
            // first event's, encoded at once: asked ahead, it would come no sooner.
            if list.count > 1 {
                for index in 1..<list.count { geofenceFragments.prefetchJSON(forGeofenceOf: &list[index]) }
            }
            for index in list.indices {
                // Through a pointer to the element: a field read as `list[index].userId` copied the
                // whole event first (each of its references retained, then released).
                let event = list.baseAddress! + index
                output.events.append(key: event.pointee.userId) {
                    EventEncoder.encode(inPlace: &event.pointee, actualCreatedAt: now, fragments: &geofenceFragments,
                                        into: &$0)
                }
                if event.pointee.type == .updatedTrip {
                    output.eta.append(key: event.pointee.userId) {
                        EtaEncoder.encode(inPlace: &event.pointee, actualCreatedAt: now, into: &$0)
                    }
                } else if event.pointee.type == .stoppedTrip, event.pointee.trip?.summary != nil {
                    output.tripSummaries.append(key: event.pointee.userId) {
                        TripSummaryEncoder.encode(event.pointee, actualCreatedAt: now, into: &$0)
                    }
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        swap(&pending, &events)
    }

    private mutating func deadLetter(_ reason: RejectionReason, _ detail: String, key: [UInt8]?,
                                     value: UnsafeRawBufferPointer, source: RecordSource, at time: UnixMillis,
                                     into output: inout OutputBatch)
    {
        counters.deadLetters[reason, default: 0] += 1
        // A replay's processing time is its stream time, which a stream without a fix yet does not
        // have (`.min`): the dead letter then has no receivedAt, rather than a made-up one.
        var letter = DeadLetter(reason: reason, detail: detail, topic: source.topic, partition: source.partition,
                                offset: source.offset, key: key, value: Array(value), receivedAt: time)
        if let file = sourceFiles[source.topic] {
            // A file's record: its line is no offset.
            letter.file = file
            letter.line = source.offset
            letter.offset = -1
        }
        letter = letter.capped()
        output.deadLetters.append(keyBytes: key) { DeadLetterEncoder.encode(letter, into: &$0) }
    }

    /// Encodes the latest state of every user touched since the last call (the users topic) and
    /// hands each one's timeline, in place, to `persist` (the changelog). Returns how many there were.
    @discardableResult
    public mutating func flushUsers(geofences: GeofenceTable, now: UnixMillis, into output: inout OutputBatch,
                                    persist: (borrowing UserTimeline) -> Void = { _ in }) -> Int
    {
        settle(geofences: geofences, processingTime: now, into: &output)
        var flushed = 0
        fold.forEachTouchedTimeline { timeline in
            let snapshot = timeline.current.snapshot(userId: timeline.userId, in: geofences)
            output.users.append(key: snapshot.userId) {
                UserStateEncoder.encode(snapshot, updatedAt: now, into: &$0)
            }
            persist(timeline)
            flushed += 1
        }
        return flushed
    }
}
