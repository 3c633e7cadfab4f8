extension MockCluster {
    /// Which coordinator a key names: a consumer group's, or a transactional producer's.
    public enum CoordinatorKind: String, Sendable, Hashable, CaseIterable {
        /// Keyed by `group.id`.
        case group
        /// Keyed by `transactional.id`.
        case transaction
    }
}
