import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import MercurialKit
import NIOCore

/// What each route answers (the checks are `EditorGuard`'s, before any of these).
struct EditorRoutes: Sendable {
    let session: EditorSession
    /// Whole-frame responses made or sent at once.
    let gate: ResponseGate
    let sockets: SocketCount

    func register(on router: Router<EditorContext>) {
        router.get("/") { request, _ in page(request) }
        router.get("/index.html") { request, _ in page(request) }
        router.get("/editor.js") { _, _ in Responses.resource(EditorPage.script) }
        router.get("/editor-scene.js") { _, _ in Responses.resource(EditorPage.sceneScript) }
        router.get("/editor.css") { _, _ in Responses.resource(EditorPage.style) }
        router.get("/api/state") { request, _ in await state(layer: Self.layer(request)) }
        router.get("/frame.delta") { request, _ in await delta(request) }
        router.get("/frame") { _, _ in await whole(.frame) }
        router.get("/frame.rgba") { _, _ in await whole(.pixels) }
        router.get("/sphere") { request, _ in await whole(.sphere, layer: Self.layer(request)) }
        router.get("/preset-sphere") { request, _ in
            picture { () throws(MercurialError) in try session.presetSpherePNG(Self.query(request, "name")) }
        }
        router.get("/font-preview") { request, _ in
            picture { () throws(MercurialError) in try session.fontPreviewPNG(Self.query(request, "name"), text: Self.query(request, "text")) }
        }
        router.get("/api/events") { _, _ in await events() }
        router.post("/api/set") { _, context in
            let (code, json) = await Self.set(EditorMessage.changes(context.body), session: session)
            return Responses.json(code, json)
        }
        router.post("/api/save") { _, context in await save(context.body) }
        router.post("/api/reload") { _, _ in
            do {
                try await session.reload()
                return Responses.json(200, Revision(revision: await session.revision))
            } catch let error as MercurialError {
                return Responses.refusal(error)
            }
        }
        router.post("/api/export") { _, _ in
            do {
                let (path, bytes) = try await session.export()
                return Responses.json(200, Written(path: path, bytes: bytes.count))
            } catch let error as MercurialError {
                // A link or an input in the way, a title too large: the page's to fix, as a video
                // export's (422); a full disk or a failing ffmpeg: the machine's (503).
                return Responses.refusal(error)
            }
        }
        router.get("/api/export.png") { _, _ in await download() }
        router.post("/api/export-video") { _, context in
            var format = "webm"
            if let root = try? JSONDocument.parse(context.body), case .string(let name)? = root.value.at([.key("format")]) {
                format = name
            }
            do {
                return Responses.json(200, Written(path: try await session.exportVideo(format: format)))
            } catch let error as MercurialError {
                return Responses.refusal(error)
            }
        }
        router.post("/api/export-video/cancel") { _, _ in
            Responses.json(200, Cancelled(cancelled: await session.cancelExport()))
        }
        // Changes in and frames out on one connection (see EditorSocket.swift).
        router.ws("/api/socket", shouldUpgrade: { [sockets] request, _ in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw Refusal(400, "Bad Request", "this is a WebSocket: connect with an Upgrade: websocket request")
            }
            guard !sockets.isFull else {
                throw Refusal(429, "Too Many Requests", "\(sockets.limit) pages are connected already; close one")
            }
            return .upgrade([:])
        }, onUpgrade: { [session, sockets] inbound, outbound, _ in
            guard sockets.enter() else { return }
            defer { sockets.leave() }
            await EditorSocket(session: session).run(inbound: inbound, outbound: outbound)
        })
    }

    private func page(_ request: Request) -> Response {
        // The socket named as well as 'self': not every browser lets 'self' cover ws:.
        Responses.resource(EditorPage.html, socket: "ws://\(request.head.authority ?? "")")
    }

    /// A query parameter's value ("" when absent).
    static func query(_ request: Request, _ name: String) -> String {
        request.uri.queryParameters[Substring(name)].map(String.init) ?? ""
    }

    /// A picker's picture (it changes only with the binary: the browser may keep it), or the refusal.
    private func picture(_ make: () throws(MercurialError) -> [UInt8]) -> Response {
        do {
            var response = Responses.bytes(.ok, "image/png", try make())
            response.headers[.cacheControl] = "private, max-age=3600"
            return response
        } catch {
            return Responses.refusal(error)
        }
    }

    /// The layer a request names (`?layer=N`, from 0), if any.
    static func layer(_ request: Request) -> Int? {
        request.uri.queryParameters["layer"].flatMap { Int(String($0)) }
    }

    /// The parameter table with the current values (the JSON of `mercurial params
    /// --json`), and what the menus offer. With `layer` (a layer of the scene), the values
    /// are that layer's as it is drawn, its own keys are the ones marked, and the keys it
    /// gives to no effect (the canvas is the first layer's) are the unused ones.
    private func state(layer asked: Int? = nil) async -> Response {
        // At the playhead, a key with a track shows the track's value there (what an edit sets).
        let scene = await session.shownSettings
        let layer = asked.flatMap { scene.layers.indices.contains($0) ? $0 : nil }
        let settings = layer.map { scene.layers[$0].settings } ?? scene
        // The table as `params --json` writes it, whatever its rows' shape: read back as a value.
        let table = (try? JSONDocument.parse(Array(ParameterGroup.json(values: settings).utf8)))?.value ?? .object([])
        let sceneKeys = await session.overriddenKeys
        // The scene's text as the file holds it, when it is a list of styled runs.
        var runs: JSONValue? = nil
        if case .object(let members) = await session.documentValue, let text = members.first(where: { $0.key == "text" })?.value.value,
           case .array = text { runs = text }
        let state = EditorState(table: table, editor: EditorState.Info(
            revision: await session.revision,
            material: settings.material,
            overridden: layer.map { scene.layers[$0].ownKeys.sorted() + (scene.layers[$0].presetKeys == nil ? [] : ["material"]) }
                ?? sceneKeys,
            unused: Self.unusedKeys(of: scene, layer: layer, table: table),
            timeline: Self.timelineInfo(await session.animation, playhead: await session.playhead,
                                        sequence: await session.titleSequence),
            materials: session.materials, fonts: session.bundledFonts, families: session.installedFamilies,
            fontAxes: (try? FontDescription.axes(of: settings.font)) ?? [],
            scene: session.scenePath, conflict: OrNull(await session.diskConflict), unsaved: await session.unsaved,
            error: OrNull(await session.lastError),
            // The nested blocks' values (the point lights the page draws on the preview), as the scene file writes them.
            blocks: SceneSchema.blocks.write(settings), document: await session.documentValue,
            textRuns: OrNull(layer == nil ? runs.flatMap(TextRuns.markupText(of:)) : nil),
            textRunsFixed: layer == nil && runs != nil && runs.flatMap(TextRuns.markupText(of:)) == nil,
            layer: OrNull(layer), layers: Self.layerInfo(scene),
            sceneWide: SceneSchema.structure.filter { !$0.places.contains(.layer) }.map(\.key)))
        return Responses.json(.ok, state)
    }

    /// The keys whose controls do nothing where the page edits: on the scene, those it sets that
    /// no layer takes (the file's warnings) and those no layer would take if it set them (every
    /// layer gives its own); on a layer, those that layer gives to no effect.
    static func unusedKeys(of scene: RenderSettings, layer: Int?, table: JSONValue) -> [EditorState.Unused] {
        var keys: [String] = ["material"]
        for list in ["parameters", "nested"] {
            guard case .array(let rows)? = table.at([.key(list)]) else { continue }
            for row in rows {
                guard case .string(let key)? = row.value.at([.key("key")]) else { continue }
                // A block's rows (`dropShadow.distance`) go with the block, a light's keys are their own.
                let top = key.hasPrefix("light") ? key : String(key.prefix { $0 != "." && $0 != "[" && $0 != "(" })
                if !keys.contains(top) { keys.append(top) }
            }
        }
        if let layer {
            return keys.compactMap { key in scene.layer(layer, ignores: key).map { EditorState.Unused(key: key, message: $0) } }
        }
        let set = scene.unusedKeys.map { EditorState.Unused(key: $0.key, message: $0.message) }
        return set + keys.filter { key in !set.contains { $0.key == key } }
            .compactMap { key in scene.noLayerTakes(key).map { EditorState.Unused(key: key, message: $0 + "; choose a layer above to edit its own") } }
    }

    /// Each layer's name and where its ink is on the canvas ([x, y, width, height]; none when
    /// the scene cannot be placed as it is).
    static func layerInfo(_ scene: RenderSettings) -> [EditorState.Layer] {
        guard !scene.layers.isEmpty else { return [] }
        let boxes = (try? LayeredTitle.inkBoxes(of: scene)) ?? []
        return scene.layers.enumerated().map { index, layer in
            let box = boxes.indices.contains(index) ? boxes[index] : nil
            return EditorState.Layer(name: layer.name ?? "layer \(index + 1)", text: layer.settings.text ?? "",
                                     box: box.map { [$0.minX, $0.minY, $0.width, $0.height] })
        }
    }

    /// The animation as the page's timeline shows it: length, rate, and each track's keyframe times;
    /// for a sequence, its spans: each title's hold and each transition, from `start` to `end` seconds.
    static func timelineInfo(_ timeline: Timeline?, playhead: Int?, sequence: TitleSequence? = nil) -> TimelineInfo {
        guard let timeline else { return TimelineInfo() }
        var info = TimelineInfo(duration: timeline.duration, fps: timeline.fps, frames: timeline.frameCount, loop: timeline.loop,
                                playhead: OrNull(playhead),
                                tracks: Dictionary(timeline.tracks.map { ($0.key, $0.keyframes.frames.map(\.time)) }, uniquingKeysWith: { a, _ in a }))
        // Each track's value at the playhead (the controls of a layer's keys show it there).
        if let playhead, sequence == nil {
            let t = timeline.time(ofFrame: min(playhead, timeline.frameCount - 1))
            info.at = Dictionary(timeline.tracks.map { ($0.key, JSONValue($0.keyframes.value(at: t)).text()) }, uniquingKeysWith: { a, _ in a })
        }
        if let sequence {
            var spans: [TimelineInfo.Span] = []
            for (i, clip) in sequence.clips.enumerated() {
                let title = sequence.steps[i].settings.text.map { "“\($0)”" } ?? "title \(i + 1)"
                spans.append(TimelineInfo.Span(kind: "hold", label: title, start: clip.holdStart, end: clip.holdEnd))
                if let transition = clip.transition {
                    spans.append(TimelineInfo.Span(kind: "transition", label: Self.name(transition.transition),
                                                   start: clip.holdEnd, end: clip.holdEnd + transition.duration))
                }
            }
            info.sequence = spans
        }
        return info
    }

    static func name(_ transition: Transition) -> String {
        switch transition {
        case .dissolve: "dissolve"
        case .flash: "flash"
        case .swipe: "swipe"
        case .ripple: "ripple"
        }
    }

    /// The pixels that changed since the frame the page shows (`have`), as runs; with
    /// `wait` (seconds, at most `longestFrameWait`), sent as soon as a frame newer than
    /// `have` is rendered, or 204 when none came in that time.
    private func delta(_ request: Request) async -> Response {
        let have = Int(request.uri.queryParameters["have"].map(String.init) ?? "") ?? 0
        if let wait = request.uri.queryParameters["wait"].flatMap({ Int(String($0)) }), wait > 0 {
            await session.waitForFrame(after: have, timeout: .seconds(min(wait, EditorServer.longestFrameWait)))
            if (await session.frame?.number ?? 0) <= have {
                return Response(status: .noContent, headers: Responses.headers("text/plain"))
            }
        }
        return await gate.run {
            guard let (frame, base) = await session.frame(andBase: have) else {
                return Responses.json(404, Refused(await session.lastError ?? "no frame rendered yet"))
            }
            let bytes = FrameDelta.encode(frame.image, frame: frame.number, from: base?.image, baseNumber: base?.number ?? 0, after: [])
            var response = Response(status: .ok, headers: Responses.headers("application/octet-stream"), body: .init(byteBuffer: bytes))
            response.headers[.frameNumber] = String(frame.number)
            // The frame's event, percent-encoded (a tag is the page's text: no line breaks in a header).
            let info = EditorReply.text(session.frameInfo(frame))
            response.headers[.frameInfo] = info.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "%7B%7D"
            return response
        }
    }

    enum Whole { case frame, pixels, sphere }

    /// The newest frame: as a PNG, as raw straight-alpha RGBA (its size is in the frame
    /// event), or the shading sphere's PNG. The raw pixels are sent in slices of the
    /// frame itself, so no copy of the whole is made; at most `concurrentFrameResponses`
    /// such responses hold a frame at once.
    private func whole(_ kind: Whole, layer: Int? = nil) async -> Response {
        await gate.enter()
        guard let frame = await session.frame else {
            await gate.leave()
            return Responses.json(404, Refused(await session.lastError ?? "no frame rendered yet"))
        }
        var response: Response
        switch kind {
        case .pixels:
            let gate = gate
            let count = frame.image.width * frame.image.height * 4
            response = Response(status: .ok, headers: Responses.headers("application/octet-stream"),
                                body: ResponseBody(contentLength: count) { writer in
                                    defer { Task { await gate.leave() } }
                                    let slice = 1 << 20
                                    for start in stride(from: 0, to: count, by: slice) {
                                        let buffer = frame.image.withUnsafeBufferPointer { pixels in
                                            UnsafeRawBufferPointer(pixels).withMemoryRebound(to: UInt8.self) {
                                                ByteBuffer(bytes: $0[start..<min(count, start + slice)])
                                            }
                                        }
                                        try await writer.write(buffer)
                                    }
                                    try await writer.finish(nil)
                                })
            response.headers[.frameNumber] = String(frame.number)
            return response
        case .frame, .sphere:
            defer { Task { await gate.leave() } }
            do {
                let bytes = kind == .frame ? try frame.png() : try session.spherePNG(for: await sphereScene(of: frame, layer: layer))
                response = Responses.bytes(.ok, "image/png", bytes)
            } catch {
                return Responses.refusal(error)
            }
            response.headers[.frameNumber] = String(frame.number)
            return response
        }
    }

    /// The scene of the sphere the page shows: the frame's, or that of the layer it edits.
    private func sphereScene(of frame: EditorFrame, layer: Int?) async -> ShadingScene {
        guard let layer else { return frame.scene }
        let layers = await session.shownSettings.layers
        return layers.indices.contains(layer) ? layers[layer].settings.scene : frame.scene
    }

    /// Server-sent events, as an endless response.
    private func events() async -> Response {
        let stream = await session.subscribe()
        var headers = Responses.headers("text/event-stream")
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for await chunk in stream {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        })
    }

    /// `{}` saves unless the file changed on disk since the editor read or wrote it (409);
    /// `{"overwrite": true}` saves anyway.
    private func save(_ body: [UInt8]) async -> Response {
        var overwrite = false
        if let root = try? JSONDocument.parse(body), case .object(let members) = root.value,
           case .bool(let value)? = members.first(where: { $0.key == "overwrite" })?.value.value {
            overwrite = value
        }
        do {
            let path = try await session.save(overwrite: overwrite)
            return Responses.json(200, Written(path: path))
        } catch let conflict as EditorSession.SaveConflict {
            return Responses.json(409, Refused(conflict.message, conflict: true))
        } catch let error as MercurialError {
            return Responses.refusal(error)
        } catch {
            return Responses.json(500, Refused("\(error)"))
        }
    }

    private func download() async -> Response {
        guard let bytes = await session.exported else {
            return Responses.json(404, Refused("nothing exported yet; press Export PNG"))
        }
        var response = Responses.bytes(.ok, "image/png", bytes)
        let name = UserPath(checked: session.scenePath).lastComponent
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        let safe = stem.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_.".unicodeScalars.contains($0)) }
        response.headers[.contentDisposition] = "attachment; filename=\"\(safe.isEmpty ? "title" : String(String.UnicodeScalarView(safe))).png\""
        return response
    }

    /// `{"changes": [{"key": K, "value": V}, …], "tag": T}` or `{"key": K, "value": V, "tag": T}`,
    /// from a POST or the page's socket: the answer's status and JSON.
    static func set(_ parsed: Result<(changes: [EditorSession.Change], tag: String?), EditorMessage.Invalid>,
                    session: EditorSession) async -> (Int, ChangeAnswer) {
        let changes: [EditorSession.Change], tag: String?
        switch parsed {
        case .failure(let error): return (400, ChangeAnswer(error: error.message))
        case .success(let parsed): (changes, tag) = parsed
        }
        do {
            let (revision, changed, added) = try await session.apply(changes, tag: tag)
            return (200, ChangeAnswer(revision: revision, changed: changed, addedKeyframes: added))
        } catch {
            return (error.kind.httpStatus, ChangeAnswer(error: error.message, key: error.key, kind: error.kind.rawValue))
        }
    }
}

