package io.jtrace.cli.trace;

import io.jtrace.protos.TraceStats;
import java.util.ArrayList;
import java.util.List;

/**
 * What the service counted as lost (its {@code TraceStats}), summed over a session's buffers: chunks a
 * ring buffer overwrote before they were read, chunks discarded (a full DISCARD buffer, or refused),
 * packets writers dropped because the shared memory was full (trace_writer_packet_loss counts the
 * places where writers reported a drop), ABI violations, failed and discarded patches, invalid packets, and
 * packets left out because their sequence's incremental state was lost with a loss before them.
 */
public record LossCounts(long chunksOverwritten, long chunksDiscarded, long writerPacketLoss, long abiViolations,
                         long patchesFailed, long patchesDiscarded, long invalidPackets,
                         long packetsWithoutIncrementalState) {
    public static final LossCounts NONE = new LossCounts(0, 0, 0, 0, 0, 0, 0, 0);

    public static LossCounts of(TraceStats stats) {
        long overwritten = 0;
        long discarded = stats.getChunksDiscarded();
        long writerLoss = 0;
        long abi = 0;
        long patchesFailed = 0;
        long withoutState = 0;
        for (TraceStats.BufferStats b : stats.getBufferStatsList()) {
            overwritten += b.getChunksOverwritten();
            discarded += b.getChunksDiscarded();
            writerLoss += b.getTraceWriterPacketLoss();
            abi += b.getAbiViolations();
            patchesFailed += b.getPatchesFailed();
            withoutState += b.getPacketsWithoutIncrementalState();
        }
        return new LossCounts(overwritten, discarded, writerLoss, abi, patchesFailed, stats.getPatchesDiscarded(),
                stats.getInvalidPackets(), withoutState);
    }

    /** "no loss", or the counters that are not 0, named as in trace_stats.proto. */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        add(parts, chunksOverwritten, "chunks_overwritten");
        add(parts, chunksDiscarded, "chunks_discarded");
        add(parts, writerPacketLoss, "trace_writer_packet_loss");
        add(parts, abiViolations, "abi_violations");
        add(parts, patchesFailed, "patches_failed");
        add(parts, patchesDiscarded, "patches_discarded");
        add(parts, invalidPackets, "invalid_packets");
        add(parts, packetsWithoutIncrementalState, "packets_without_incremental_state");
        return parts.isEmpty() ? "no loss" : "lost: " + String.join(", ", parts);
    }

    private static void add(List<String> parts, long value, String name) {
        if (value != 0) {
            parts.add(name + "=" + value);
        }
    }
}
