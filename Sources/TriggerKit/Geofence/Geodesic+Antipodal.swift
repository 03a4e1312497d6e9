import Foundation

// The inverse problem for nearly antipodal points, where Vincenty's iteration fails.
//
// Formulation of C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87 (2013) 43-55,
// section 2: on the auxiliary sphere (reduced latitude β, arc length σ, longitude ω) a
// geodesic leaving β1 with azimuth α1 has sin α0 = sin α1 cos β1, k² = e'² cos² α0 and
//   s / b   = ∫ sqrt(1 + k² sin² σ) dσ                                         (eq. 7)
//   λ - ω   = -f sin α0 ∫ (2 - f) / (1 + (1 - f) sqrt(1 + k² sin² σ)) dσ       (eq. 8)
// Karney expands both integrals in series; we integrate them numerically instead (Gauss-
// Legendre, 12 nodes per quarter period: the integrands are analytic in a strip of half-width
// asinh(1/k) > 3, so the rule is exact to rounding, ~1e-15 relative). With the points
// standardized (φ1 <= 0, |φ2| <= |φ1|, 0 <= λ12 <= 180), λ12 is a non-decreasing function of
// α1 on [0, π] (Karney, section 4), so bisection on α1 always finds the shortest geodesic,
// including the exactly antipodal and equatorial cases. About 60 evaluations: ~20 µs, paid
// only within ~0.6 degrees of the antipode.

@_spi(Engine) extension Geodesic {
    static func antipodalDistance(latitude1: Double, latitude2: Double, lon12: Double) -> Double {
        var lat1 = latitude1, lat2 = latitude2
        if abs(lat2) > abs(lat1) { swap(&lat1, &lat2) }
        if lat1 > 0 { lat1 = -lat1; lat2 = -lat2 }
        let target = abs(lon12) * degree
        // Both on the equator: the equator itself is the shortest path up to (1 - f)π
        // (Karney, section 4); beyond, the bisection finds the path over a pole.
        if lat1 == 0 && lat2 == 0 && target <= (1 - flattening) * .pi { return equatorialRadius * target }
        var (sb1, cb1) = reducedLatitude(lat1)
        let (sb2, cb2) = reducedLatitude(lat2)
        // -0 keeps σ1 = atan2(sβ1, cos α1 cos β1) at -π, not +π, when starting on the equator.
        sb1 = -abs(sb1)
        var lo = 0.0, hi = Double.pi
        for _ in 0..<64 {
            let mid = (lo + hi) / 2
            if mid <= lo || mid >= hi { break }
            if geodesicLine(alpha1: mid, sb1, cb1, sb2, cb2).lambda12 < target { lo = mid } else { hi = mid }
        }
        return geodesicLine(alpha1: (lo + hi) / 2, sb1, cb1, sb2, cb2).s12
    }

    /// Longitude difference and length of the geodesic leaving β1 with azimuth α1, up to
    /// where it first reaches β2 heading north.
    private static func geodesicLine(alpha1: Double, _ sb1: Double, _ cb1: Double, _ sb2: Double, _ cb2: Double)
        -> (lambda12: Double, s12: Double)
    {
        let f = flattening
        let sa1 = sin(alpha1), ca1 = cos(alpha1)
        let sa0 = sa1 * cb1
        let k2 = ep2 * (1 - sa0 * sa0)
        // cos α2 cos β2 from Clairaut's relation, written to avoid cancellation when β1 ≈ ±β2.
        let cc2 = max(0, ca1 * cb1 * ca1 * cb1 + (cb2 - cb1) * (cb2 + cb1)).squareRoot()
        let cc1 = ca1 * cb1
        let sigma1 = atan2(sb1, cc1), sigma2 = atan2(sb2, cc2)
        let omega1 = atan2(sa0 * sb1, cc1), omega2 = atan2(sa0 * sb2, cc2)
        var iS = 0.0, iL = 0.0
        integrate(from: sigma1, to: sigma2) { sigma, w in
            let s = sin(sigma)
            let r = (1 + k2 * s * s).squareRoot()
            iS += w * r
            iL += w * (2 - f) / (1 + (1 - f) * r)
        }
        return (omega2 - omega1 - f * sa0 * iL, polarRadius * iS)
    }

    /// Composite Gauss-Legendre quadrature over [a, b], panels at most π/2 long.
    @inline(__always)
    private static func integrate(from a: Double, to b: Double, _ body: (Double, Double) -> Void) {
        let length = b - a
        guard length > 0 else { return }
        let panels = max(1, Int((length / (Double.pi / 2)).rounded(.up)))
        let h = length / Double(panels)
        let rule = gaussLegendre
        for p in 0..<panels {
            let centre = a + (Double(p) + 0.5) * h
            for i in rule.nodes.indices {
                body(centre + h / 2 * rule.nodes[i], h / 2 * rule.weights[i])
            }
        }
    }

    /// Nodes and weights of the 12-point Gauss-Legendre rule on [-1, 1], by Newton's method
    /// on the Legendre polynomial (three-term recurrence), computed once.
    static let gaussLegendre: (nodes: [Double], weights: [Double]) = {
        let n = 12
        var nodes: [Double] = [], weights: [Double] = []
        for i in 1...n {
            var x = cos(Double.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
            var dp = 0.0
            for _ in 0..<100 {
                var p0 = 1.0, p1 = x
                for k in 2...n {
                    let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                    p0 = p1; p1 = p2
                }
                dp = Double(n) * (x * p1 - p0) / (x * x - 1)
                let dx = p1 / dp
                x -= dx
                if abs(dx) < 1e-16 { break }
            }
            nodes.append(x)
            weights.append(2 / ((1 - x * x) * dp * dp))
        }
        return (nodes, weights)
    }()
}
