import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// What a tenant's request bodies may hold while they are received and applied: each body at
/// most `limits.maxBodyBytes` and within ``timeout``, all of them together at most ``limit``
/// bytes.
///
/// A body was read for as long as its client took: one byte a minute kept a connection, and
/// its buffer, for ever; a hundred bodies held one byte short of the limit kept 830 MB, and
/// one token could so take the process's memory from every tenant. Unauthenticated bodies,
/// and bodies past the limit, were read to their end after the answer (a declared length of
/// 2^62 never ended). A helper's finds.
final class Uploads: Sendable {
    /// The bytes of bodies being received or applied, all of a tenant's together.
    let limit: Int
    /// How long one body may take to arrive.
    let timeout: Duration
    private let held = Atomic<Int>(0)

    /// Bodies together hold at most this many times `limits.maxBodyBytes`.
    static let bodiesAtOnce = 16
    /// The `Retry-After` (seconds) of a body refused over the budget: bodies in flight end
    /// within the body timeout, most within a second.
    static let retryAfterSeconds = 1

    init(maxBodyBytes: Int, timeout: Duration) {
        limit = Self.bodiesAtOnce * Swift.max(1, maxBodyBytes)
        self.timeout = timeout
    }

    /// The bytes of bodies being received or applied now.
    var inFlight: Int { held.load(ordering: .relaxed) }

    /// Takes `n` bytes of the budget; false (nothing taken) when that would pass it.
    func take(_ n: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            guard current + n <= limit else { return false }
            let (exchanged, original) = held.compareExchange(expected: current, desired: current + n, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func give(_ n: Int) {
        held.subtract(n, ordering: .relaxed)
    }

    /// A body that did not arrive within ``timeout``.
    struct TimedOut: Error {}

    /// Why a body's reading stopped.
    private enum Refusal: Error { case tooLarge, overBudget }

    /// Bytes taken from the budget by a body's reading (read once the reading is done).
    private final class Taken: Sendable {
        let bytes = Atomic<Int>(0)
    }

    /// Reads `request`'s whole body for a tenant whose limit is `maxBodyBytes` and runs `use`
    /// with it: refused while it arrives past the limit (413; a declared length past it is
    /// refused before, by ``BearerAuth``), past ``limit`` (429 `tooManyUploads`) or past ``timeout`` (408
    /// `bodyTimeout`). The body holds its part of the budget until `use` is done: given back
    /// as soon as it had arrived, bodies waiting for their tenant's thread were bounded by
    /// nothing (128 bodies of 8 MiB took 5.3 GB; a reviewer's find). A refusal closes the
    /// connection (its answer says `Connection: close`): the rest of the body is not read.
    func withBody<T>(_ request: Request, context: ServeContext, maxBodyBytes: Int,
                     _ use: ([UInt8]) async throws -> T) async throws -> T {
        // (A declared length past the limit was refused before the route: ``BearerAuth``.)
        let tooLarge = APIError.tooLarge(maxBodyBytes)
        let body = request.body
        let taken = Taken()
        // Given back however the body ends: after `use`, or at a refusal. (Read once the
        // group is done: it waits for its children, so no take comes later.)
        defer { give(taken.bytes.load(ordering: .relaxed)) }
        let buffer: ByteBuffer
        do {
            buffer = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { [self] in
                    var out = ByteBuffer()
                    for try await part in body {
                        guard out.readableBytes + part.readableBytes <= maxBodyBytes else { throw Refusal.tooLarge }
                        guard take(part.readableBytes) else { throw Refusal.overBudget }
                        taken.bytes.add(part.readableBytes, ordering: .relaxed)
                        var part = part
                        out.writeBuffer(&part)
                    }
                    return out
                }
                group.addTask { [timeout] in
                    try await Task.sleep(for: timeout)
                    throw TimedOut()
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let bytes = first else { throw CancellationError() }
                return bytes
            }
        } catch Refusal.tooLarge {
            throw context.closing(tooLarge)
        } catch Refusal.overBudget {
            var busy = APIError(.tooManyRequests, "tooManyUploads",
                                "this tenant's bodies being received or applied hold \(limit) bytes, its limit (\(Self.bodiesAtOnce) times limits.maxBodyBytes): retry")
            busy.retryAfter = Self.retryAfterSeconds
            throw context.closing(busy)
        } catch is TimedOut {
            throw context.closing(APIError(.requestTimeout, "bodyTimeout", "the body did not arrive within \(timeout)"))
        }
        return try await use(Array(buffer.readableBytesView))
    }
}
