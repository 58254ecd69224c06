package io.jtrace.jfr.file;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.output.TraceFileReader;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a merge needs to know of an existing jtrace trace, learnt while copying it packet by packet into
 * the merged file (one packet in memory at a time): its processes' and threads' track uuids, every
 * track uuid it describes, the REALTIME − MONOTONIC offset of its clock snapshots, and the highest
 * sequence id it uses (the JFR events get sequences above it).
 *
 * <p>The offset is the smallest of all snapshots': a snapshot reads MONOTONIC, then REALTIME, so any
 * delay between the two reads (the first {@code Instant.now()} of a JVM took 77 µs when measured) only
 * makes an offset larger than the truth; the smallest is the tightest.
 */
final class TraceIndex {
    final Map<Integer, Long> processUuids = new HashMap<>();
    final Map<Integer, String> processNames = new HashMap<>();
    /** pid → (tid → track uuid). */
    final Map<Integer, Map<Long, Long>> threadUuids = new HashMap<>();
    final Set<Long> describedUuids = new HashSet<>();
    Long realtimeMinusMonotonic;
    int maxSequenceId;
    long packets;

    /**
     * Copies {@code trace} into {@code into} and learns it. A file that is no trace, a packet that does
     * not decode or damaged framing (a cut-off last packet) refuses the merge: a merged file must not
     * silently lack the end of the trace it was made from.
     */
    static TraceIndex copy(Path trace, TraceFileWriter into) throws IOException, JfrInputException {
        TraceIndex index = new TraceIndex();
        try (TraceFileReader reader = TraceFileReader.open(trace)) {
            while (reader.next()) {
                TracePacket packet = TracePacket.parseFrom(ByteBuffer.wrap(reader.packet(), 0, reader.packetLength()));
                index.learn(packet);
                into.packet(reader.packet(), 0, reader.packetLength(), PacketSink.NO_TRAILER, 0);
                index.packets++;
            }
            if (reader.damage() != null) {
                throw new JfrInputException(trace + ": not a whole Perfetto trace, damaged " + reader.damage());
            }
        } catch (TraceFileReader.NotATraceException e) {
            throw new JfrInputException(e.getMessage(), e);
        } catch (InvalidProtocolBufferException e) {
            throw new JfrInputException(trace + ": not a readable Perfetto trace after " + index.packets
                    + " packets (" + e.getMessage() + ")", e);
        }
        return index;
    }

    private void learn(TracePacket packet) {
        if (packet.hasTrustedPacketSequenceId()) {
            maxSequenceId = Math.max(maxSequenceId, packet.getTrustedPacketSequenceId());
        }
        if (packet.hasTrackDescriptor()) {
            TrackDescriptor d = packet.getTrackDescriptor();
            describedUuids.add(d.getUuid());
            if (d.hasProcess()) {
                processUuids.put(d.getProcess().getPid(), d.getUuid());
                processNames.put(d.getProcess().getPid(), d.getProcess().getProcessName());
            }
            if (d.hasThread()) {
                threadUuids.computeIfAbsent(d.getThread().getPid(), k -> new HashMap<>())
                        .putIfAbsent(d.getThread().getTid(), d.getUuid());
            }
        }
        if (packet.hasClockSnapshot()) {
            Long realtime = null;
            Long monotonic = null;
            for (ClockSnapshot.Clock c : packet.getClockSnapshot().getClocksList()) {
                if (c.getClockId() == BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE) {
                    realtime = c.getTimestamp();
                } else if (c.getClockId() == BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE) {
                    monotonic = c.getTimestamp();
                }
            }
            if (realtime != null && monotonic != null) {
                long offset = realtime - monotonic;
                realtimeMinusMonotonic = realtimeMinusMonotonic == null ? offset : Math.min(realtimeMinusMonotonic, offset);
            }
        }
    }
}
