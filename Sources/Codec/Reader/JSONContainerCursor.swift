/// Iteration state for one object or array being read: whether the next member is the first
/// (which must not be preceded by a comma).
public struct JSONContainerCursor: Sendable {
    var isFirst = true

    init() {}
}
