package io.jtrace.service;

import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.service.status.DumpResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a running session's trace into a file while the session goes on (like {@code JFR.dump}): its
 * buffers are copied and the copies read out as a whole trace (the session's config and start clocks
 * first, its stats last), so the session's own read-out later sees nothing of the dump. Service thread
 * only; the file is written on that thread too, so a dump of a large buffer pauses chunk moving for as
 * long as the write takes (the producers' shared memory absorbs that).
 */
final class SessionDump {
    private final Map<Integer, TraceBuffer> buffers;
    private final SequenceIdentity sequences;
    private final ServicePackets servicePackets;
    private final TraceStatsBuilder stats;

    SessionDump(Map<Integer, TraceBuffer> buffers, SequenceIdentity sequences, ServicePackets servicePackets,
                TraceStatsBuilder stats) {
        this.buffers = buffers;
        this.sequences = sequences;
        this.servicePackets = servicePackets;
        this.stats = stats;
    }

    DumpResult dump(TracingSession session, Path file) {
        if (session.config.getWriteIntoFile()) {
            throw new IllegalStateException("session " + session.id + " streams into " + session.config.getOutputPath()
                    + "; that file already has its trace (flush, then read it)");
        }
        if (session.state == TracingSession.State.DISABLED) {
            throw new IllegalStateException("session " + session.id + " has stopped; its trace is written at its end");
        }
        List<TraceBuffer> copies = new ArrayList<>();
        for (int bufferId : session.bufferIds) {
            copies.add(buffers.get(bufferId).copy());
        }
        try (TraceFileWriter out = new TraceFileWriter(file)) {
            PacketSink sink = out;
            servicePackets.writeHeader(session, sink);
            servicePackets.writeClockSnapshot(ClockReader.snapshot(), sink);
            for (TraceBuffer copy : copies) {
                copy.readAll(sequences, sink, true);
            }
            servicePackets.writeStats(stats.build(session), sink);
            out.flush();
            return new DumpResult(session.id, file, out.bytes(), out.packets());
        } catch (IOException | UncheckedIOException e) {
            throw new InvalidConfigException("cannot write the dump to '" + file + "': " + e.getMessage());
        }
    }
}
