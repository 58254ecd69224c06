package io.jtrace.service.buffer;

import io.jtrace.protos.TraceStats;

/** The running counters of one trace buffer, in the shape of Perfetto's {@code TraceStats.BufferStats}. */
public final class BufferCounters {
    long bytesWritten;
    long bytesOverwritten;
    long bytesRead;
    long chunksWritten;
    long chunksRewritten;
    long chunksOverwritten;
    long chunksDiscarded;
    long chunksRead;
    long chunksCommittedOutOfOrder;
    long abiViolations;
    long writeWrapCount;
    long patchesSucceeded;
    long patchesFailed;

    public long bytesWritten() {
        return bytesWritten;
    }

    public long chunksDiscarded() {
        return chunksDiscarded;
    }

    public long chunksOverwritten() {
        return chunksOverwritten;
    }

    public long abiViolations() {
        return abiViolations;
    }

    public TraceStats.BufferStats toProto(long bufferSize) {
        return TraceStats.BufferStats.newBuilder()
                .setBufferSize(bufferSize)
                .setBytesWritten(bytesWritten)
                .setBytesOverwritten(bytesOverwritten)
                .setBytesRead(bytesRead)
                .setChunksWritten(chunksWritten)
                .setChunksRewritten(chunksRewritten)
                .setChunksOverwritten(chunksOverwritten)
                .setChunksDiscarded(chunksDiscarded)
                .setChunksRead(chunksRead)
                .setChunksCommittedOutOfOrder(chunksCommittedOutOfOrder)
                .setAbiViolations(abiViolations)
                .setWriteWrapCount(writeWrapCount)
                .setPatchesSucceeded(patchesSucceeded)
                .setPatchesFailed(patchesFailed)
                .build();
    }
}
