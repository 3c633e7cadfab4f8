/// The fold: `state', events = fold(state, input)`. Pure: no clock, no I/O, deterministic.
extension UserState {
    /// Folds one input (fix or command) into the state, appending the events it yields.
    /// Timers due at or before the input's time fire first.
    public mutating func fold(_ input: TimelineInput, context: FoldContext, events: inout [Event]) -> FoldOutcome {
        if context.nextTimerDue <= input.time { fireTimers(upTo: input.time, context: context, events: &events) }
        switch input.attachment {
        case let .command(box):
            return apply(box.command, context: context, events: &events)
        case let .fixExtras(extras):
            merge(extras)
            return applyFix(input, context: context, events: &events)
        case .none:
            return applyFix(input, context: context, events: &events)
        }
    }

    private mutating func applyFix(_ input: TimelineInput, context: FoldContext, events: inout [Event]) -> FoldOutcome {
        let settings = context.settings
        let time = input.time
        let position = input.position
        let accuracy = input.accuracy.isNaN ? 0 : Double(input.accuracy)

        let previousFixAt = locationAt
        var relocated = false
        var fixSpeed = input.speed
        if let last = location {
            let elapsed = max(Double(time - locationAt) / 1000, 0)
            let moved = Geodesy.distance(last, position)
            if moved > settings.maxPlausibleSpeed * elapsed + settings.jumpSlack + accuracy {
                if let suspect,
                    Geodesy.distance(suspect, position)
                        <= settings.maxPlausibleSpeed * max(Double(time - suspectAt) / 1000, 0) + settings.jumpSlack
                            + accuracy
                {
                    suspectCount &+= 1
                } else {
                    suspectCount = 1
                }
                suspect = position
                suspectAt = time
                if suspectCount < settings.jumpConfirmations { return .filteredJump }
                relocated = true  // several fixes agree: the user really is there now
            } else if elapsed > 0 {
                let observed = Float(moved / elapsed)
                speed = speed.isNaN ? observed : speed * 0.7 + observed * 0.3
                // Movement within the fix's accuracy is no evidence of moving: parked GPS jitter.
                if fixSpeed.isNaN { fixSpeed = Float(max(moved - accuracy, 0) / elapsed) }
            }
        }
        suspect = nil
        suspectCount = 0
        if !input.speed.isNaN { speed = input.speed }
        if relocated { stoppedSince = .max } else { trackStop(speed: fixSpeed, at: time, settings: settings) }
        location = position
        locationAt = time
        self.accuracy = input.accuracy
        // `tripBoxForReading`, not `trip`: the getter copies the whole trip out just to test it.
        let hasTrip = tripBoxForReading != nil
        if hasTrip { restoreTripSignal(at: time, context: context, events: &events) }

        let decisive = accuracy <= Double(settings.maxUsableAccuracy)
        let geofenceEvents = events.count
        if decisive {
            updateGeofences(at: position, accuracy: accuracy, time: time, context: context, events: &events)
        }
        if hasTrip {
            let tripEvents = events.count
            advanceTrip(
                at: position, accuracy: decisive ? accuracy : .infinity, time: time, relocated: relocated,
                context: context, events: &events)
            if tripEvents > geofenceEvents {
                reportWrongDestinations(entries: geofenceEvents..<tripEvents, at: time, context: context, events: &events)
            }
        }
        if decisive, !presences.isEmpty, isStopped(at: time, settings: settings) {
            let confirmedNow = previousFixAt == .min || previousFixAt - stoppedSince < settings.stopDuration
            noteStopInside(at: time, confirmedNow: confirmedNow, context: context, events: &events)
        }
        return decisive ? .applied : .tooInaccurate
    }

    // MARK: - Events

    /// An event of this user at `time`, its `_id` hashed from the user, the type and what `id` adds.
    /// The other fields are given here rather than set afterwards: set on a local event, they make
    /// its `append` a copy (every reference in it retained and released). Built with the memberwise
    /// initializer: `Event`'s public one, with its defaults, built each event twice, one copied.
    func makeEvent(_ type: EventType, at time: UnixMillis, context: FoldContext, geofence: Geofence? = nil,
                   confidence: EventConfidence? = nil, durationSeconds: Int32? = nil, exitReason: ExitReason? = nil,
                   trip: TripSnapshot? = nil, id: (inout StableHasher) -> Void) -> Event
    {
        var hasher = context.userIdHasher
        hasher.combine(type.rawValue)
        id(&hasher)
        return makeEvent(type, at: time, context: context, geofence: geofence, confidence: confidence,
                         durationSeconds: durationSeconds, exitReason: exitReason, trip: trip, hashed: hasher)
    }

    /// The same with the `_id`'s hasher given whole (the user and the type included).
    @inline(__always)
    func makeEvent(_ type: EventType, at time: UnixMillis, context: FoldContext, geofence: Geofence? = nil,
                   confidence: EventConfidence? = nil, durationSeconds: Int32? = nil, exitReason: ExitReason? = nil,
                   trip: TripSnapshot? = nil, hashed hasher: StableHasher) -> Event
    {
        Event(
            id: EventID(hashing: hasher), type: type, userId: context.userId, createdAt: time, replayed: context.replayed,
            late: false, revision: .original, location: location, locationAccuracy: accuracy, deviceId: deviceId,
            userMetadata: metadata, geofence: geofence, durationSeconds: durationSeconds, confidence: confidence,
            exitReason: exitReason, trip: trip)
    }

    /// The buffer outside a geofence's edge that a user must pass before an exit counts.
    static func hysteresisBuffer(radius: Double, settings: FoldSettings) -> Double {
        min(max(settings.hysteresisMinimum, radius * settings.hysteresisFraction), settings.hysteresisMaximum)
    }

    /// Whether a fix at `signedDistance` with `accuracy` is confidently inside an area of `radius`.
    static func entersArea(signedDistance: Double, accuracy: Double, radius: Double, settings: FoldSettings) -> Bool {
        signedDistance <= 0 && (accuracy <= max(radius, settings.enterAccuracyFloor) || signedDistance + accuracy <= 0)
    }

    /// Whether a fix is confidently outside an area the user is in, beyond the hysteresis buffer.
    static func leavesArea(signedDistance: Double, accuracy: Double, radius: Double, settings: FoldSettings) -> Bool {
        signedDistance - accuracy > hysteresisBuffer(radius: radius, settings: settings)
    }
}
