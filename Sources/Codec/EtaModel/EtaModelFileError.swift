/// Why a file could not be read as an ETA model (`EtaModelFile`): each case names the problem, so
/// the CLI can say which file is wrong and how.
public enum EtaModelFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with `tripstream-eta-model`: another kind of file.
    case notAnEtaModel
    /// A model file of a format version this build does not read.
    case unsupportedVersion(Int)
    /// A model learned with other features, bands or cells than this build's.
    case incompatible(field: String)
    /// Line `line` (1-based) is not what the format says; `field` names what was expected.
    case malformed(line: Int, field: String)
    /// The file ends before its `end` line: cut short.
    case truncated
    /// The checksum on the `end` line does not match the lines before it: damaged.
    case checksumMismatch

    public var description: String {
        switch self {
        case .notAnEtaModel: "not a TripStream ETA model (no \"tripstream-eta-model\" header)"
        case .unsupportedVersion(let version):
            "ETA model format version \(version) is not supported (this build reads \(EtaModelFile.version): "
                + "learn the model again with replay --eta-model-out)"
        case .incompatible(let field): "ETA model was learned with another \(field) than this build's"
        case .malformed(let line, let field): "ETA model line \(line): malformed \(field)"
        case .truncated: "ETA model is truncated (no end line)"
        case .checksumMismatch: "ETA model is damaged (checksum mismatch)"
        }
    }
}
