import Dispatch

// Where a tenant's blocking work runs. A center's operations are synchronous: a batch of
// fixes, a snapshot of a million requests, a journal write that waits for the disk, or a date
// Foundation searches for take what they take. On Swift's cooperative pool (one thread per
// core) as many of those as there are cores would hold every thread, and with them every
// other tenant's calls and every HTTP handler. So each tenant's center and store work runs
// on a serial queue of its own (`TenantThread`), and the pool only carries the requests'
// reading and answering.

/// A tenant's own serial queue, as a task executor: a task that prefers it runs its
/// nonisolated code there, and so does the center's actor (a default actor runs on the task
/// executor its caller prefers). One work item at a time, in order.
///
/// Threads: each queue takes a thread from Dispatch's overcommit pool while it has work, so a
/// tenant that blocks holds one thread and never the cooperative pool. Dispatch bounds that
/// pool (255 threads on Linux); past it, queues wait for a thread.
final class TenantThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: the queue is thread-safe and never replaced.
    private let queue: DispatchQueue
    /// Marks the queue, so code can tell it runs there (``isCurrent``).
    private static let mark = DispatchSpecificKey<ObjectIdentifier>()

    init(tenant: String) {
        queue = DispatchQueue(label: "triggerkit.tenant.\(tenant)")
        queue.setSpecific(key: Self.mark, value: ObjectIdentifier(self))
    }

    /// Whether the caller runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.mark) == ObjectIdentifier(self) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` with this thread preferred: its own code, and any default actor it calls
    /// (the tenant's center), run on the tenant's queue; the caller resumes where it was.
    func run<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        try await withTaskExecutorPreference(self) { () async throws(E) -> T in
            // Onto the queue first. The preference alone moves a task at its next suspension,
            // and entering an idle actor is not one: the actor runs on the thread the task is
            // on. Measured with Swift 6.3 on Linux, a center called straight away ran on the
            // caller's cooperative thread in most builds; after the yield, always on the queue.
            await Task.yield()
            return try await body()
        }
    }
}
