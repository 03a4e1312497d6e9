import Foundation

/// The WGS84 geodesic from one point to another, as a path that can be walked: Vincenty's
/// inverse formula gives its length and initial azimuth, his direct formula the point at any
/// distance along it (both accurate to well under a millimetre on the paths used here).
///
/// Used for crossings between sparse fixes, whose paths are at most
/// ``maximumLength`` long, far from the nearly antipodal case where Vincenty's inverse
/// iteration fails (``init(latitude0:longitude0:latitude1:longitude1:)`` returns nil there).
struct GeodesicPath {
    let latitude0: Double
    let longitude0: Double
    /// The end as given (longitude unwrapped from the start as given): ``point(at:)`` at
    /// ``length`` is within a few nanometres of it, not on it.
    let latitude1: Double
    let longitude1: Double
    /// Length in metres.
    let length: Double
    // The direct problem's constants for this path (Vincenty's notation).
    private let sinU1, cosU1, sinAlpha1, cosAlpha1, sigma1, sinAlpha, cos2Alpha, A, B: Double

    /// The longest path a crossing is looked for on (metres): fixes further apart say too
    /// little about the way between them.
    static let maximumLength = 100_000.0

    init?(latitude0: Double, longitude0: Double, latitude1: Double, longitude1: Double) {
        let (sU1, cU1) = Geodesic.reducedLatitude(latitude0)
        let (sU2, cU2) = Geodesic.reducedLatitude(latitude1)
        guard let (distance, lambda) = Geodesic.vincentyInverse(latitude0, latitude1, Geodesic.unwrapDegrees(longitude1 - longitude0))
        else { return nil }
        let sinLambda = sin(lambda), cosLambda = cos(lambda)
        let alpha1 = atan2(cU2 * sinLambda, cU1 * sU2 - sU1 * cU2 * cosLambda)
        self.latitude0 = latitude0
        self.longitude0 = longitude0
        self.latitude1 = latitude1
        self.longitude1 = longitude1
        length = distance
        sinU1 = sU1
        cosU1 = cU1
        sinAlpha1 = sin(alpha1)
        cosAlpha1 = cos(alpha1)
        sigma1 = atan2(sU1 / cU1, cosAlpha1)
        sinAlpha = cU1 * sinAlpha1
        cos2Alpha = 1 - sinAlpha * sinAlpha
        let u2 = cos2Alpha * Geodesic.ep2
        A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    }

    /// The point `s` metres along the path (Vincenty's direct formula); longitude unwrapped
    /// continuously from the start (it may leave [-180, 180] on a path across the
    /// antimeridian).
    func point(at s: Double) -> (latitude: Double, longitude: Double) {
        let f = Geodesic.flattening, deg = Geodesic.degree
        let base = s / (Geodesic.polarRadius * A)
        var sigma = base
        var sinSigma = 0.0, cosSigma = 1.0, cos2SigmaM = 1.0
        for _ in 0..<100 {
            cos2SigmaM = cos(2 * sigma1 + sigma)
            sinSigma = sin(sigma)
            cosSigma = cos(sigma)
            let c2 = cos2SigmaM * cos2SigmaM
            let dSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * c2)
                - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * c2)))
            let next = base + dSigma
            if abs(next - sigma) < 1e-14 { sigma = next; break }
            sigma = next
        }
        cos2SigmaM = cos(2 * sigma1 + sigma)
        sinSigma = sin(sigma)
        cosSigma = cos(sigma)
        let tmp = sinU1 * sinSigma - cosU1 * cosSigma * cosAlpha1
        let lat = atan2(sinU1 * cosSigma + cosU1 * sinSigma * cosAlpha1, (1 - f) * (sinAlpha * sinAlpha + tmp * tmp).squareRoot())
        let lambda = atan2(sinSigma * sinAlpha1, cosU1 * cosSigma - sinU1 * sinSigma * cosAlpha1)
        let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        let L = lambda - (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
        return (lat / deg, longitude0 + L / deg)
    }
}
