import CGEOS

/// An error reported by GEOS (through the context's message handler) or a geometry GEOS
/// found invalid.
@_spi(Engine) public struct GEOSError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Owns one GEOS context handle (`GEOS_init_r`) and routes its error messages into Swift.
///
/// Every GEOS pointer in TriggerKit lives in this file and `GEOSContext+Geometry.swift`:
/// geometries and prepared geometries are wrapped in ``GEOSGeometry`` and
/// ``GEOSPreparedGeometry``, which free them in `deinit` and keep their context alive.
///
/// Not `Sendable`, on purpose: a GEOS context (its error buffer, the lazily built indexes of
/// prepared geometries) must not be used from two threads at once. Use one context per owner,
/// from one task.
final class GEOSContext {
    let handle: GEOSContextHandle_t
    /// Receives the messages of `GEOSContext_setErrorMessageHandler_r`. A class so the C
    /// handler can reach it through an unretained pointer; it lives exactly as long as the
    /// context (`deinit` finishes the context first).
    private let messages: MessageBox

    final class MessageBox {
        var last: String?
    }

    init() throws(GEOSError) {
        guard let handle = GEOS_init_r() else { throw GEOSError(message: "GEOS_init_r failed") }
        self.handle = handle
        self.messages = MessageBox()
        let box = Unmanaged.passUnretained(messages).toOpaque()
        _ = GEOSContext_setErrorMessageHandler_r(handle, { message, userdata in
            guard let message, let userdata else { return }
            Unmanaged<MessageBox>.fromOpaque(userdata).takeUnretainedValue().last = String(cString: message)
        }, box)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The error GEOS reported since the last call (clearing it), or `fallback`.
    func takeError(_ fallback: String) -> GEOSError {
        defer { messages.last = nil }
        return GEOSError(message: messages.last ?? fallback)
    }
}

/// A GEOS geometry owned by Swift; destroyed with its context's handle.
final class GEOSGeometry {
    let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }
}

/// A prepared geometry (`GEOSPrepare_r`). GEOS does not copy the base geometry, so this keeps
/// it alive; GEOS builds the prepared index on first use, so ``init(_:)`` warms it.
final class GEOSPreparedGeometry {
    let base: GEOSGeometry
    let pointer: OpaquePointer

    /// Prepares `base` and runs one covers test at `warmAt` so the first real query does not
    /// pay for (and race on) building the prepared index.
    ///
    /// - Complexity: O(n log n) in the number of vertices.
    init(_ base: GEOSGeometry, warmAt point: (x: Double, y: Double)) throws(GEOSError) {
        let ctx = base.context
        guard let prepared = GEOSPrepare_r(ctx.handle, base.pointer) else {
            throw ctx.takeError("GEOSPrepare_r failed")
        }
        self.base = base
        self.pointer = prepared
        var probe = GEOSLazyPoint(x: point.x, y: point.y)
        defer { probe.release(ctx) }
        _ = try covers(&probe)
    }

    deinit {
        GEOSPreparedGeom_destroy_r(base.context.handle, pointer)
    }

    /// Whether the geometry covers the point (boundary counts as inside). Creates the GEOS
    /// point on first use, so callers pay for it only when a candidate survives their filters.
    ///
    /// - Complexity: O(log n) with the prepared index (n vertices).
    func covers(_ point: inout GEOSLazyPoint) throws(GEOSError) -> Bool {
        let ctx = base.context
        guard let p = try point.geometry(ctx) else { return false }
        switch GEOSPreparedCovers_r(ctx.handle, pointer, p) {
        case 1: return true
        case 0: return false
        default: throw ctx.takeError("GEOSPreparedCovers_r failed")
        }
    }
}

/// A point made into a GEOS geometry at most once, on first use; the owner calls
/// ``release(_:)`` when done (a `defer` next to its creation).
struct GEOSLazyPoint {
    let x: Double
    let y: Double
    private var pointer: OpaquePointer?

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    mutating func geometry(_ ctx: GEOSContext) throws(GEOSError) -> OpaquePointer? {
        if let pointer { return pointer }
        guard let p = GEOSGeom_createPointFromXY_r(ctx.handle, x, y) else {
            throw ctx.takeError("GEOSGeom_createPointFromXY_r failed")
        }
        pointer = p
        return p
    }

    mutating func release(_ ctx: GEOSContext) {
        if let pointer { GEOSGeom_destroy_r(ctx.handle, pointer) }
        pointer = nil
    }
}
