package io.jtrace.jmx;

/**
 * One trace buffer of a session with its counters (those of Perfetto's {@code TraceStats.BufferStats}).
 *
 * @param usedBytes bytes stored and not yet read out (for a file session: not yet in the file)
 * @param fillPercent usedBytes as a percentage of sizeBytes
 * @param policy {@code RING} (overwrites the oldest) or {@code DISCARD} (refuses new data when full)
 */
public record BufferInfo(int id, long sizeBytes, long usedBytes, int fillPercent, String policy, long bytesWritten,
                         long bytesOverwritten, long chunksWritten, long chunksOverwritten, long chunksDiscarded,
                         long writerPacketLoss, long abiViolations, long patchesFailed) {
}
