/// The editor's page: plain HTML, CSS and JavaScript (the files in `Page/`), compiled
/// into the binary by SwiftPM (`.embedInCode`: no build step, nothing fetched from
/// elsewhere, no resource bundle to install beside the static binary, so it works
/// offline). The controls are made from the parameter table the server sends
/// (`/api/state`, the JSON of `mercurial params --json` with the current values, its
/// nested keys included, each control's `data-key` their path): nothing there lists
/// parameters.
enum EditorPage {
    /// A file of the page, as it is served.
    struct File: Sendable {
        let bytes: [UInt8]
        let type: String
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    static let html = File(bytes: PackageResources.index_html, type: "text/html; charset=utf-8")
    static let style = File(bytes: PackageResources.editor_css, type: "text/css; charset=utf-8")
    /// The page's two scripts, run in this order (classic scripts: their top-level names are shared).
    static let script = File(bytes: PackageResources.editor_js, type: "text/javascript; charset=utf-8")
    static let sceneScript = File(bytes: PackageResources.editor_scene_js, type: "text/javascript; charset=utf-8")
}
