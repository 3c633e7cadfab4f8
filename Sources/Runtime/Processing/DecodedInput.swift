import Codec
import Domain

/// An input record decoded once: a fix, a trip command, or why it could not be decoded.
public enum DecodedInput: Sendable {
    case fix(Fix)
    case command(TripCommand)
    case invalid(DecodeError)

    public static func fix(_ bytes: [UInt8]) -> DecodedInput {
        do { return .fix(try FixDecoder.decode(bytes)) } catch { return .invalid(error) }
    }

    public static func command(_ bytes: [UInt8]) -> DecodedInput {
        do { return .command(try TripCommandDecoder.decode(bytes)) } catch { return .invalid(error) }
    }

    /// Event time; an undecodable record sorts first (`.min`).
    public var createdAt: UnixMillis {
        switch self {
        case let .fix(fix): fix.createdAt
        case let .command(command): command.createdAt
        case .invalid: .min
        }
    }
}
