import PackagePlugin

/// Embeds a target's web files (`.html`, `.css`, `.js`) in its code at build time: the binary then serves them
/// wherever it runs (a container, a copy on another machine) with nothing beside it.
@main
struct EmbedWebFiles: BuildToolPlugin {
    static let extensions: Set<String> = ["html", "css", "js"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.map(\.url).filter { Self.extensions.contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWebFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) web files in \(target.name)",
                executable: try context.tool(named: "EmbedWebFiles").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files, outputFiles: [output])
        ]
    }
}
