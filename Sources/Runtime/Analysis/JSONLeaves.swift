import Codec
import Domain

/// The leaves of a JSON text, each named by its path (`trip.eta.duration`, `location.coordinates[0]`)
/// with its value as JSON text (`11.5`, `"arrived"`, `{}` for an empty object): what `tripstream diff`
/// compares field by field.
enum JSONLeaves {
    struct Leaf: Equatable {
        var path: String
        var value: String
    }

    /// The leaves in document order. Text that is not JSON is one leaf with an empty path, never a crash.
    static func of(_ json: String) -> [Leaf] {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var leaves: [Leaf] = []
            do {
                try collect(&reader, path: "", into: &leaves)
                try reader.finish()
            } catch {
                return [Leaf(path: "", value: json)]
            }
            return leaves
        }
    }

    /// Depth is bounded by `JSONReader.maxDepth`, which throws past it.
    private static func collect(_ reader: inout JSONReader, path: String, into leaves: inout [Leaf]) throws(DecodeError) {
        switch reader.peekKind() {
        case .object:
            var cursor = try reader.beginObject()
            var members = 0
            while let key = try reader.nextKey(&cursor) {
                let name = reader.string(key)
                try collect(&reader, path: path.isEmpty ? name : path + "." + name, into: &leaves)
                members += 1
            }
            if members == 0 { leaves.append(Leaf(path: path, value: "{}")) }
        case .array:
            var cursor = try reader.beginArray()
            var index = 0
            while try reader.nextElement(&cursor) {
                try collect(&reader, path: "\(path)[\(index)]", into: &leaves)
                index += 1
            }
            if index == 0 { leaves.append(Leaf(path: path, value: "[]")) }
        default:
            let range = try reader.captureValue()
            leaves.append(Leaf(path: path, value: reader.rawJSON(range).text))
        }
    }
}
