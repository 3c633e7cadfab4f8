/// What a user's own arrived trips taught the ETA: the sum of ln(actual seconds / √meters) over
/// checkpoints and their count. Per user, so that a user's results depend only on that user's
/// history (the ordering invariant), never on other users' arrival order.
public struct EtaLearning: Sendable, Equatable {
    public var logScaleSum: Float = 0
    public var observations: UInt32 = 0

    public init() {}
}
