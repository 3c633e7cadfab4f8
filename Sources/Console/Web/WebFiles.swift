import struct Foundation.Data

/// The pages' files, `Sources/Console/Web/*.{html,css,js}`, carried in the binary: the EmbedWebFiles build plugin
/// turns them into `EmbeddedWebFiles` at build time. Edit the files; they are checked by `node --check` and
/// unit-tested by `node --test` (`Tests/web`).
enum WebFiles {
    /// Every file by name, decoded once.
    static let all: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for (name, text) in EmbeddedWebFiles.base64 {
            let base64 = text.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
            // The plugin wrote it from the file's bytes: a failure here is a broken build, not bad input.
            guard let data = Data(base64Encoded: base64) else { preconditionFailure("\(name) is not embedded as base64") }
            files[name] = Array(data)
        }
        return files
    }()

    /// The file's bytes and its `Content-Type`; nil when no such file is embedded.
    static func file(_ name: String) -> (bytes: [UInt8], type: String)? {
        guard let bytes = all[name], let type = contentType(name) else { return nil }
        return (bytes, type)
    }

    static func contentType(_ name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        default: nil
        }
    }

    /// The page for a refused tracking link: `refused.html` with its `{{message}}` filled in, escaped.
    static func refusedPage(_ message: String) -> [UInt8] {
        let template = String(decoding: all["refused.html"] ?? [], as: UTF8.self)
        return Array(template.replacing("{{message}}", with: escapedHTML(message)).utf8)
    }

    static func escapedHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
