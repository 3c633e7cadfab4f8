/// A user's newest inputs, in event-time order, delta-encoded in bytes: about 11 bytes a fix
/// instead of a 32-byte `TimelineInput`, so a tail of tens of inputs stays small on the hot heap.
/// Trip commands and fix extras are kept by reference beside the bytes (they are rare).
///
/// Appending in order is all the in-order fold does; reading it back (`decoded`) is for refolds and
/// sealing a segment. A state record stores `bytes` and `attachments` as they are: this layout is
/// part of the changelog's format (state version 8), and `inputs(persisted:count:attachments:)` reads
/// it back with every check a record from disk or the broker needs.
struct TailLog: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0
    /// Event time of the first and the last input (meaningless when empty).
    private(set) var firstTime: UnixMillis = 0
    private(set) var lastTime: UnixMillis = 0
    private var lastLatitude: Int32 = 0
    private var lastLongitude: Int32 = 0
    private(set) var attachments: [TimelineInput.Attachment] = []
    /// What the attachments weigh in a stored segment (see `TimelineInput.attachmentWeight`).
    private(set) var attachmentBytes = 0

    init() {}

    init(_ inputs: [TimelineInput]) {
        for input in inputs { append(input) }
    }

    var isEmpty: Bool { count == 0 }

    /// Starts loading the header of `bytes`' storage, which the next append reads and writes
    /// (mutating only to reach the field's address; nothing is written).
    @inline(__always)
    mutating func prefetchForAppend() {
        CachePrefetch.read(storageOf: &bytes, elementBytes: 0, maxLines: 1)
    }

    // Flags: bit 0 replayed, bit 1 an attachment (its index follows), bit 2 accuracy, bit 3 speed.
    mutating func append(_ input: TimelineInput) {
        precondition(count == 0 || input.time >= lastTime, "a tail is appended in event-time order")
        var flags: UInt8 = input.replayed ? 1 : 0
        let attachment = input.attachment.identity
        if attachment != nil { flags |= 2 }
        if input.accuracyDecimeters != .max { flags |= 4 }
        if input.speedCentimeters != .max { flags |= 8 }
        let repeatsAttachment = attachment != nil && attachment == lastAttachment
        // Written on the stack and appended at once: an append per byte checked the array's
        // capacity and uniqueness eleven times a fix.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxRecordBytes) { record in
            record[0] = flags
            var at = 1
            if count == 0 {
                Self.varint(UInt64(bitPattern: input.time), into: record, at: &at)
            } else {
                Self.varint(UInt64(input.time - lastTime), into: record, at: &at)
            }
            Self.varint(Self.zigzag(Int64(input.position.latitudeE7) - Int64(lastLatitude)), into: record, at: &at)
            Self.varint(Self.zigzag(Int64(input.position.longitudeE7) - Int64(lastLongitude)), into: record, at: &at)
            if flags & 4 != 0 { Self.varint(UInt64(input.accuracyDecimeters), into: record, at: &at) }
            if flags & 8 != 0 { Self.varint(UInt64(input.speedCentimeters), into: record, at: &at) }
            // Consecutive fixes usually share one extras object: kept once, referenced again.
            if flags & 2 != 0 {
                Self.varint(UInt64(repeatsAttachment ? attachments.count - 1 : attachments.count), into: record, at: &at)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: record[0..<at]))
        }
        if count == 0 { firstTime = input.time }
        if flags & 2 != 0, !repeatsAttachment { keepAttachment(of: input) }
        lastTime = input.time
        lastLatitude = input.position.latitudeE7
        lastLongitude = input.position.longitudeE7
        count += 1
    }

    /// The most bytes one input takes: its flags and at most six varints of up to 10 bytes.
    private static let maxRecordBytes = 64

    /// Out of line: inlined, the copy of the attachment it needs is hoisted to the top of `append`,
    /// a retain and a release of the user's extras on every fix that repeats them.
    @inline(never)
    private mutating func keepAttachment(of input: TimelineInput) {
        attachments.append(input.attachment)
        attachmentBytes += input.attachmentWeight
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        attachments.removeAll()
        attachmentBytes = 0
        count = 0
        lastLatitude = 0
        lastLongitude = 0
    }

    /// The inputs, in order.
    func decoded() -> [TimelineInput] {
        var inputs: [TimelineInput] = []
        inputs.reserveCapacity(count)
        var offset = 0
        var time: Int64 = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        for index in 0..<count {
            let flags = bytes[offset]
            offset += 1
            let delta = Self.readVarint(bytes, &offset)
            time = index == 0 ? Int64(bitPattern: delta) : time + Int64(delta)
            latitude += Self.unzigzag(Self.readVarint(bytes, &offset))
            longitude += Self.unzigzag(Self.readVarint(bytes, &offset))
            var input = TimelineInput(time: time, position: Coordinate(latitudeE7: Int32(truncatingIfNeeded: latitude),
                                                                       longitudeE7: Int32(truncatingIfNeeded: longitude)))
            input.replayed = flags & 1 != 0
            if flags & 4 != 0 { input.accuracyDecimeters = UInt16(truncatingIfNeeded: Self.readVarint(bytes, &offset)) }
            if flags & 8 != 0 { input.speedCentimeters = UInt16(truncatingIfNeeded: Self.readVarint(bytes, &offset)) }
            if flags & 2 != 0 { input.attachment = attachments[Int(Self.readVarint(bytes, &offset))] }
            inputs.append(input)
        }
        return inputs
    }

    /// The newest attachment's identity, read in place: `attachments.last` would copy (retain) it.
    private var lastAttachment: ObjectIdentifier? {
        attachments.withUnsafeBufferPointer { $0.isEmpty ? nil : $0[$0.count - 1].identity }
    }

    // MARK: - Persisted as it is

    /// The inputs of a tail stored as its `bytes` (holding `count` inputs) and `attachments`, each
    /// checked: bytes from a corrupt record throw instead of trapping, and never yield inputs out of
    /// event-time order or attachments the tail could not have referenced.
    static func inputs(persisted bytes: [UInt8], count: Int, attachments: [TimelineInput.Attachment])
        throws(Malformed) -> [TimelineInput]
    {
        var reader = PersistedReader(bytes: bytes)
        var inputs: [TimelineInput] = []
        inputs.reserveCapacity(min(count, bytes.count))
        var time: Int64 = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        var lastAttachment = -1
        for index in 0..<count {
            let flags = try reader.byte()
            guard flags < 16 else { throw Malformed("bad tail input flags \(flags)") }
            let delta = try reader.varint()
            if index == 0 {
                time = Int64(bitPattern: delta)
            } else {
                let (next, overflow) = time.addingReportingOverflow(Int64(bitPattern: delta))
                guard delta <= UInt64(Int64.max), !overflow else { throw Malformed("tail inputs out of event-time order") }
                time = next
            }
            let (newLatitude, latitudeOverflow) = latitude.addingReportingOverflow(Self.unzigzag(try reader.varint()))
            let (newLongitude, longitudeOverflow) = longitude.addingReportingOverflow(Self.unzigzag(try reader.varint()))
            guard !latitudeOverflow, !longitudeOverflow, let latitudeE7 = Int32(exactly: newLatitude),
                let longitudeE7 = Int32(exactly: newLongitude)
            else { throw Malformed("tail coordinate out of range") }
            (latitude, longitude) = (newLatitude, newLongitude)
            var input = TimelineInput(time: time, position: Coordinate(latitudeE7: latitudeE7, longitudeE7: longitudeE7))
            input.replayed = flags & 1 != 0
            if flags & 4 != 0 { input.accuracyDecimeters = try reader.quantity() }
            if flags & 8 != 0 { input.speedCentimeters = try reader.quantity() }
            if flags & 2 != 0 {
                // `append` refers to the newest attachment again or adds the next one.
                let raw = try reader.varint()
                guard raw < UInt64(attachments.count), Int(raw) == lastAttachment || Int(raw) == lastAttachment + 1 else {
                    throw Malformed("tail attachment \(raw) out of order")
                }
                lastAttachment = Int(raw)
                input.attachment = attachments[lastAttachment]
                if let command = input.command, command.createdAt != time {
                    throw Malformed("a command's time differs from its place in the tail")
                }
            }
            inputs.append(input)
        }
        guard reader.isAtEnd else { throw Malformed("trailing bytes after the tail's inputs") }
        guard lastAttachment == attachments.count - 1 else { throw Malformed("tail attachments never referenced") }
        return inputs
    }

    /// A persisted tail that fails a check.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads persisted tail bytes, throwing where `readVarint` would trap.
    private struct PersistedReader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed("tail bytes end inside an input") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws(Malformed) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 63 || next <= 1 else { throw Malformed("tail varint too long") }
                value |= UInt64(next & 0x7f) << shift
                if next & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func quantity() throws(Malformed) -> UInt16 {
            let raw = try varint()
            guard raw < UInt64(UInt16.max) else { throw Malformed("tail quantity \(raw) out of range") }
            return UInt16(raw)
        }
    }

    // MARK: - Varints

    @inline(__always) static func varint(_ value: UInt64, into record: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        var value = value
        while value >= 0x80 {
            record[at] = UInt8(truncatingIfNeeded: value) | 0x80
            at += 1
            value >>= 7
        }
        record[at] = UInt8(value)
        at += 1
    }

    @inline(__always) static func readVarint(_ bytes: [UInt8], _ offset: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    @inline(__always) static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    @inline(__always) static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
