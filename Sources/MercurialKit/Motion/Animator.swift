/// One thing that moves a scene as time passes. A `Timeline` is an ordered list of
/// them, and the scene at time t is the base settings with each applied in turn:
/// a frame is a function of its time alone (as a Remotion frame is), whatever frames
/// were made before it. Only animators read the clock.
public enum Animator: Sendable, Equatable {
    /// A keyframed value: a parameter, a point light's field, a gradient's colour or end.
    case track(Track)
    /// The scene's `in` and `out` presets, over the tracks' values.
    case inOut(InOut)
    /// Each layer's own `in` and `out`, over the scene's.
    case layerMoves
    /// Every point light with an `orbit` goes round it.
    case orbits
    /// The vine grows along its route, over its `duration` from its `start`.
    case vineGrowth
    /// The glyphs as rigid bodies: this one moves bodies, not settings. Their poses
    /// come from the simulation the renderer builds from the glyphs' outlines (a
    /// `PhysicsWorld`), which steps on from the last frame's time rather than from 0.
    case physics(Dynamics)

    /// Applies this animator's change at `time` to `settings`.
    public func apply(to settings: inout RenderSettings, at time: Double) {
        switch self {
        case .track(let track): track.apply(at: time, to: &settings)
        case .inOut(let inOut):
            // A layered scene's `in` and `out` bring the whole stack in and out together.
            inOut.apply(to: &settings, at: time)
            for i in settings.layers.indices { inOut.apply(to: &settings.layers[i].settings, at: time) }
        case .layerMoves:
            for i in settings.layers.indices {
                settings.layers[i].inOut?.apply(to: &settings.layers[i].settings, at: time)
            }
        case .orbits: settings.applyOrbits(at: time)
        case .vineGrowth: if let vine = settings.vine { settings.vine?.grown = vine.growth(at: time) }
        case .physics: break
        }
    }

    /// The bodies' poses at `time`, from `world`, the physics animator's simulation.
    /// Throws when the physics runs over its budget on the way, or the job is stopped
    /// (`Cancellation.current`: Ctrl-C, for the command line).
    static func poses(at time: Double, in world: PhysicsWorld) throws(MercurialError) -> [BodyPose] {
        world.advance(to: time)
        if let error = world.overBudget { throw error }
        // Stopped part way (see `PhysicsWorld.advance`): no frame.
        try Cancellation.checkCurrent()
        return world.poses
    }
}
