/// Re-renders whenever the state changes, never more than one render at a time,
/// like the original app's `createImage()` with its `isBusy` and `pendingUpdate`
/// flags: a change during a render is remembered, and when the render finishes
/// the newest state is rendered. States in between may be skipped; the last one
/// never is.
public actor RenderPipeline<State: Sendable> {
    public typealias Render = @Sendable (State) async -> Void

    public private(set) var isBusy = false
    public private(set) var pendingUpdate = false
    /// How many renders have started.
    public private(set) var renderCount = 0

    private var latest: State?
    private let render: Render
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// `render` runs off the actor (a detached task), so it may block and use every core.
    public init(render: @escaping Render) {
        self.render = render
    }

    /// A new state: rendered now if idle, or as soon as the render in flight ends.
    public func update(_ state: State) {
        latest = state
        guard !isBusy else {
            pendingUpdate = true
            return
        }
        start()
    }

    /// Returns once no render is in flight and none is pending.
    public func waitUntilIdle() async {
        guard isBusy else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func start() {
        guard let state = latest else { return }
        latest = nil
        isBusy = true
        renderCount += 1
        let render = self.render
        Task.detached {
            await render(state)
            await self.finished()
        }
    }

    private func finished() {
        isBusy = false
        if pendingUpdate {
            pendingUpdate = false
            start()
            return
        }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        waiters.forEach { $0.resume() }
    }
}
