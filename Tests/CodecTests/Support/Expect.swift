import Codec
import Domain
import Testing

/// Decodes and returns the error, or records an issue if decoding succeeded.
func decodeError<T>(
    _ body: () throws(DecodeError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> DecodeError? {
    do {
        let value = try body()
        Issue.record("expected a DecodeError, decoded \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Expects a rejection with `reason` whose detail contains `detail`.
func expectRejection<T>(
    _ reason: RejectionReason, _ detail: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(DecodeError) -> T
) {
    guard let error = decodeError(body, sourceLocation: sourceLocation) else { return }
    #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
    #expect(error.detail.contains(detail), "detail was: \(error.detail)", sourceLocation: sourceLocation)
}

func fix(_ json: String) throws(DecodeError) -> Fix { try FixDecoder.decode(Array(json.utf8)) }
