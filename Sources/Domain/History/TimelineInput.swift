/// One input of a user's history, compact: a fix without what the fold does not use, or a command.
///
/// This is both what the fold consumes and what the replay history stores (about 40 bytes), so a
/// live fold and a refold from history see exactly the same thing.
public struct TimelineInput: Sendable, Equatable {
    public enum Attachment: Sendable {
        case none
        /// Device id and/or user metadata sent with a fix; absent fields keep the last known values.
        case fixExtras(FixExtras)
        case command(CommandBox)

        /// The attached object's identity, nil for none: compared per fix without retaining it.
        var identity: ObjectIdentifier? {
            switch self {
            case .none: nil
            case let .fixExtras(extras): ObjectIdentifier(extras)
            case let .command(box): ObjectIdentifier(box)
            }
        }
    }

    public var time: UnixMillis
    public var position: Coordinate
    /// Accuracy in decimeters, `.max` when absent: 32-byte entries keep a user's history small.
    /// The fold only ever sees this quantized value, live or refolding.
    public var accuracyDecimeters: UInt16
    /// Speed in cm/s, `.max` when absent.
    public var speedCentimeters: UInt16
    public var replayed: Bool
    public var attachment: Attachment

    /// - Parameter fix: borrowed: taken (owned), the fix is copied first, its strings retained.
    public init(fix: borrowing Fix, extras: FixExtras?) {
        time = fix.createdAt
        position = fix.position
        accuracyDecimeters = Self.quantize(fix.accuracy, scale: 10)
        speedCentimeters = Self.quantize(fix.speed, scale: 100)
        replayed = fix.replayed
        attachment = extras.map { .fixExtras($0) } ?? .none
    }

    /// A fix's input without extras, its quantities absent until set.
    init(time: UnixMillis, position: Coordinate) {
        self.time = time
        self.position = position
        accuracyDecimeters = .max
        speedCentimeters = .max
        replayed = false
        attachment = .none
    }

    public init(command: TripCommand) {
        time = command.createdAt
        position = Coordinate(latitudeE7: 0, longitudeE7: 0)
        accuracyDecimeters = .max
        speedCentimeters = .max
        replayed = false
        attachment = .command(CommandBox(command))
    }

    /// Meters; NaN when absent.
    @inline(__always) public var accuracy: Float {
        accuracyDecimeters == .max ? .nan : Float(accuracyDecimeters) / 10
    }

    /// m/s; NaN when absent.
    @inline(__always) public var speed: Float { speedCentimeters == .max ? .nan : Float(speedCentimeters) / 100 }

    static func quantize(_ value: Float, scale: Float) -> UInt16 {
        guard value.isFinite, value >= 0 else { return .max }
        return UInt16(min((value * scale).rounded(), Float(UInt16.max - 1)))
    }

    public static func == (lhs: TimelineInput, rhs: TimelineInput) -> Bool {
        lhs.isDuplicate(of: rhs) && lhs.replayed == rhs.replayed
    }

    public var command: TripCommand? {
        if case let .command(box) = attachment { return box.command }
        return nil
    }

    /// Bytes its attachment adds to a stored segment (device id, metadata, a command's strings):
    /// segments are also cut by this weight, so a stored segment stays far below a broker's message
    /// size limit whatever the inputs carry.
    public var attachmentWeight: Int {
        switch attachment {
        case .none: 0
        case let .fixExtras(x): (x.deviceId?.utf8.count ?? 0) + (x.metadata?.bytes.count ?? 0)
        case let .command(box):
            box.command.userId.utf8.count + box.command.trip.externalId.utf8.count
                + (box.command.trip.metadata?.bytes.count ?? 0) + 64
        }
    }

    /// Whether both carry the very same attachment object (stored once in a segment).
    func sharesAttachment(with other: TimelineInput) -> Bool {
        attachment.identity != nil && attachment.identity == other.attachment.identity
    }

    public var isCommand: Bool {
        if case .command = attachment { return true }
        return false
    }

    /// Total order used to place inputs in history: event time first, then a content order, so that
    /// inputs with equal times sort the same whatever order they arrived in.
    public func isOrdered(before other: TimelineInput) -> Bool {
        if time != other.time { return time < other.time }
        switch (attachment, other.attachment) {
        case let (.command(a), .command(b)):
            let ka = (a.command.kind.rawValue, a.command.trip.externalId)
            let kb = (b.command.kind.rawValue, b.command.trip.externalId)
            return ka < kb
        case (.command, _): return true
        case (_, .command): return false
        default:
            let ka = (position.latitudeE7, position.longitudeE7, accuracyDecimeters, speedCentimeters)
            let kb = (other.position.latitudeE7, other.position.longitudeE7, other.accuracyDecimeters,
                      other.speedCentimeters)
            if ka != kb { return ka < kb }
            return !replayed && other.replayed
        }
    }

    /// The same input again (an at-least-once producer's retry, a device's repeated replay).
    public func isDuplicate(of other: TimelineInput) -> Bool {
        guard time == other.time else { return false }
        switch (attachment, other.attachment) {
        case let (.command(a), .command(b)): return a.command == b.command
        case (.command, _), (_, .command): return false
        case let (.fixExtras(a), .fixExtras(b)):
            guard a == b else { return false }
        case (.none, .none): break
        default: return false
        }
        return position == other.position && accuracyDecimeters == other.accuracyDecimeters
            && speedCentimeters == other.speedCentimeters
    }
}

/// The rarely changing parts of a fix, shared by reference between consecutive fixes that repeat them.
public final class FixExtras: Sendable, Equatable {
    public let deviceId: String?
    public let metadata: RawJSON?

    public init(deviceId: String?, metadata: RawJSON?) {
        self.deviceId = deviceId
        self.metadata = metadata
    }

    public static func == (lhs: FixExtras, rhs: FixExtras) -> Bool {
        lhs === rhs || (lhs.deviceId == rhs.deviceId && lhs.metadata == rhs.metadata)
    }
}

/// A trip command held by reference, so a history entry stays small.
public final class CommandBox: Sendable {
    public let command: TripCommand
    public init(_ command: TripCommand) { self.command = command }
}
