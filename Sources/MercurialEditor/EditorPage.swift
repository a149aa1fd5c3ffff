enum EditorPage {
    static let html = "<!doctype html><title>x</title>"
    static let script = ""
    static let style = ""
}
