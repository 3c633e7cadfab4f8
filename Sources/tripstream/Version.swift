/// `tripstream --version`. The one place the version is written: bumped by hand in the commit that makes a
/// release (semantic versioning; the state format and the topics' schemas have versions of their own).
enum TripStreamVersion {
    static let current = "0.9.0"
}
