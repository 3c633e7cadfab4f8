import CommandSupport
import Foundation

/// Secrets read from files (never from the command line, where `ps` shows them): the bytes, less one
/// trailing line break. Errors name the file, never its content.
enum SecretFile {
    static func read(_ path: String, option: String, minimumBytes: Int) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("--\(option): cannot read \(path)")
        }
        var bytes = [UInt8](data)
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        guard bytes.count >= minimumBytes else {
            throw CommandFailure("--\(option): \(path) holds \(bytes.count) bytes; at least \(minimumBytes) are needed")
        }
        return bytes
    }
}
