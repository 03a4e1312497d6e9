import Testing
@_spi(Engine) @testable import TriggerKit

/// The chunks of a pass over every request: each index once, results in index order.
@Suite struct ParallelChunksTests {
    @Test(arguments: [0, 1, 100, ParallelChunks.threshold - 1, ParallelChunks.threshold, 3 * ParallelChunks.threshold + 7])
    func chunksCoverEachIndexOnceInOrder(_ count: Int) {
        let chunks = ParallelChunks.ranges(count)
        #expect(chunks.first?.lowerBound == 0 && chunks.last?.upperBound == count)
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(count < ParallelChunks.threshold ? chunks.count == 1 : chunks.count >= 1)
        #expect(ParallelChunks.map(count) { range in range.map { $0 * 3 } } == (0..<count).map { $0 * 3 })
        // Chunks of different sizes of output (some empty).
        #expect(ParallelChunks.map(count) { range in range.filter { $0 % 5 == 0 } } == (0..<count).filter { $0 % 5 == 0 })
    }
}
