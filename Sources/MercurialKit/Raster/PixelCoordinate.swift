extension Int {
    /// The whole pixel `value` rounds to (`rule`), held within ±2³⁰ and 0 for NaN:
    /// a coordinate computed from user numbers (an overshooting curve, a far offset)
    /// lands far off any canvas instead of trapping as `Int(_:)` does beyond Int's range.
    init(pixel value: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let limit = Double(1 << 30)
        guard !value.isNaN else { self = 0; return }
        self = Int(Swift.min(Swift.max(value.rounded(rule), -limit), limit))
    }
}
