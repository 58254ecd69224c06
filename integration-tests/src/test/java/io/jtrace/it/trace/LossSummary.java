package io.jtrace.it.trace;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a trace says it lost, in one place: the service's own counters from its {@code trace_stats}
 * packet and the packets that carry {@code previous_packet_dropped}. A test asserts
 * {@link #isLossless()} and prints {@link #toString()} on failure, so a lossy run says where the loss
 * happened (ring overwrite, SMB full at the writer, ABI violations, ...) without opening the trace.
 *
 * <p>The service's counters are cumulative over the session, so the last {@code trace_stats} packet
 * holds them all; a trace without one cannot be called lossless because nobody counted.
 */
public record LossSummary(
        int traceStatsPackets,
        List<BufferLoss> buffers,
        long chunksDiscarded,
        long patchesDiscarded,
        long invalidPackets,
        long packetsWithPreviousPacketDropped,
        int droppedReasons) {

    /** One trace buffer's loss counters (trace_stats.proto BufferStats). */
    public record BufferLoss(int buffer, long chunksOverwritten, long chunksDiscarded, long traceWriterPacketLoss,
            long abiViolations, long patchesFailed, long packetsWithoutIncrementalState) {
        long total() {
            return chunksOverwritten + chunksDiscarded + traceWriterPacketLoss + abiViolations + patchesFailed
                    + packetsWithoutIncrementalState;
        }

        @Override
        public String toString() {
            return "buffer " + buffer + " {chunks_overwritten=" + chunksOverwritten
                    + ", chunks_discarded=" + chunksDiscarded
                    + ", trace_writer_packet_loss=" + traceWriterPacketLoss
                    + ", abi_violations=" + abiViolations
                    + ", patches_failed=" + patchesFailed
                    + ", packets_without_incremental_state=" + packetsWithoutIncrementalState + "}";
        }
    }

    /** Sum of every loss counter and of the packets flagged previous_packet_dropped. */
    public long total() {
        long sum = chunksDiscarded + patchesDiscarded + invalidPackets + packetsWithPreviousPacketDropped;
        for (BufferLoss b : buffers) {
            sum += b.total();
        }
        return sum;
    }

    /** True only when the service reported its counters and every one of them, and every packet, says no loss. */
    public boolean isLossless() {
        return traceStatsPackets > 0 && total() == 0;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(isLossless() ? "LOSSLESS" : "LOSS total=" + total());
        s.append(" {trace_stats packets=").append(traceStatsPackets);
        if (traceStatsPackets == 0) {
            s.append(" (no trace_stats: loss unknown)");
        }
        s.append(", chunks_discarded=").append(chunksDiscarded)
                .append(", patches_discarded=").append(patchesDiscarded)
                .append(", invalid_packets=").append(invalidPackets)
                .append(", packets with previous_packet_dropped=").append(packetsWithPreviousPacketDropped);
        if (droppedReasons != 0) {
            s.append(" (reasons mask 0x").append(Integer.toHexString(droppedReasons)).append(')');
        }
        for (BufferLoss b : buffers) {
            s.append(", ").append(b);
        }
        return s.append('}').toString();
    }

    /** Accumulates a summary while a trace is streamed. */
    public static final class Builder {
        private int traceStatsPackets;
        private TraceStats last;
        private long previousPacketDropped;
        private int droppedReasons;

        public void packet(TracePacket p) {
            if (p.hasTraceStats()) {
                traceStatsPackets++;
                last = p.getTraceStats();
            }
            if (p.getPreviousPacketDropped() != 0) {
                previousPacketDropped++;
                droppedReasons |= p.getPreviousPacketDropped();
            }
        }

        public LossSummary build() {
            List<BufferLoss> buffers = new ArrayList<>();
            if (last == null) {
                return new LossSummary(0, buffers, 0, 0, 0, previousPacketDropped, droppedReasons);
            }
            for (int i = 0; i < last.getBufferStatsCount(); i++) {
                TraceStats.BufferStats b = last.getBufferStats(i);
                buffers.add(new BufferLoss(i, b.getChunksOverwritten(), b.getChunksDiscarded(),
                        b.getTraceWriterPacketLoss(), b.getAbiViolations(), b.getPatchesFailed(),
                        b.getPacketsWithoutIncrementalState()));
            }
            return new LossSummary(traceStatsPackets, List.copyOf(buffers), last.getChunksDiscarded(),
                    last.getPatchesDiscarded(), last.getInvalidPackets(), previousPacketDropped, droppedReasons);
        }
    }
}
