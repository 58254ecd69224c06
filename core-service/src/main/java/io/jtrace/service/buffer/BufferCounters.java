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
    long patchesSucceeded;
    long patchesFailed;
    long invalidPackets;
    long paddingBytesWritten;
    long writeWrapCount;
    long writerPacketLoss;
    long trustedFieldViolations;
    long packetsWithoutIncrementalState;
    /** Chunks whose packets after the first went out on their writer's hints, without a walk (not in TraceStats). */
    long chunksReadOnHints;
    /** Chunks read straight from the SMB into a file, never stored ({@link ReadThrough}); also in chunksWritten and chunksRead. */
    long chunksReadThrough;
    /** Chunks their writers appended to a file themselves ({@link Promotion}); also in chunksWritten and chunksRead. */
    long chunksPromoted;

    void copyFrom(BufferCounters o) {
        bytesWritten = o.bytesWritten;
        bytesOverwritten = o.bytesOverwritten;
        bytesRead = o.bytesRead;
        chunksWritten = o.chunksWritten;
        chunksRewritten = o.chunksRewritten;
        chunksOverwritten = o.chunksOverwritten;
        chunksDiscarded = o.chunksDiscarded;
        chunksRead = o.chunksRead;
        chunksCommittedOutOfOrder = o.chunksCommittedOutOfOrder;
        abiViolations = o.abiViolations;
        patchesSucceeded = o.patchesSucceeded;
        patchesFailed = o.patchesFailed;
        invalidPackets = o.invalidPackets;
        paddingBytesWritten = o.paddingBytesWritten;
        writeWrapCount = o.writeWrapCount;
        writerPacketLoss = o.writerPacketLoss;
        trustedFieldViolations = o.trustedFieldViolations;
        packetsWithoutIncrementalState = o.packetsWithoutIncrementalState;
        chunksReadOnHints = o.chunksReadOnHints;
        chunksReadThrough = o.chunksReadThrough;
        chunksPromoted = o.chunksPromoted;
    }

    public long bytesOverwritten() {
        return bytesOverwritten;
    }

    public long chunksWritten() {
        return chunksWritten;
    }

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

    /** Drop markers seen: places where a writer reported lost packets. */
    public long writerPacketLoss() {
        return writerPacketLoss;
    }

    public long patchesSucceeded() {
        return patchesSucceeded;
    }

    public long patchesFailed() {
        return patchesFailed;
    }

    /** Packets dropped at read because they were malformed or set a field only the service may set. */
    public long invalidPackets() {
        return invalidPackets;
    }

    public long chunksRead() {
        return chunksRead;
    }

    public long chunksReadOnHints() {
        return chunksReadOnHints;
    }

    /** A copy, for a thread other than the buffer's. */
    public BufferCounters copy() {
        BufferCounters c = new BufferCounters();
        c.copyFrom(this);
        return c;
    }

    public long chunksReadThrough() {
        return chunksReadThrough;
    }

    public long chunksPromoted() {
        return chunksPromoted;
    }

    /**
     * Packets left out because their sequence lost data and they needed the incremental state that went
     * with it (trace_processor could not have decoded them).
     */
    public long packetsWithoutIncrementalState() {
        return packetsWithoutIncrementalState;
    }

    /** Of {@link #invalidPackets()}, those that tried to set a trusted field. */
    public long trustedFieldViolations() {
        return trustedFieldViolations;
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
                .setPatchesSucceeded(patchesSucceeded)
                .setPatchesFailed(patchesFailed)
                .setPaddingBytesWritten(paddingBytesWritten)
                .setWriteWrapCount(writeWrapCount)
                .setTraceWriterPacketLoss(writerPacketLoss)
                .setPacketsWithoutIncrementalState(packetsWithoutIncrementalState)
                .build();
    }
}
