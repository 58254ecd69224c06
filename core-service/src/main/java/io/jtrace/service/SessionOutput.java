package io.jtrace.service;

import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.service.clock.ClockSnapshotSchedule;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Reads a session's trace out, with the service's own packets around its buffers' contents: to a
 * consumer's sink, or (write_into_file) into the session's file, in steps while it traces and a last
 * time when it ends. Service thread only.
 */
final class SessionOutput implements StreamedFiles {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);

    /**
     * Most a streaming buffer fills before it is drained into the file: the file writer's own buffer.
     * Draining a 32 MiB buffer every 2 MiB instead recorded 5-10 % fewer slices per second into the file
     * at 2 and 4 flooding threads (benchmarks/README.md).
     */
    private static final int DRAIN_BYTES = 256 * 1024;

    private final Map<Integer, TraceBuffer> buffers;
    private final Map<Integer, TracingSession> bufferOwners;
    private final SequenceRegistry sequences;
    private final ServicePackets servicePackets;
    private final TraceStatsBuilder stats;
    /** Stops a session whose file cannot take more. */
    private final Consumer<TracingSession> stopSession;

    SessionOutput(Map<Integer, TraceBuffer> buffers, Map<Integer, TracingSession> bufferOwners,
                  SequenceRegistry sequences, ServicePackets servicePackets, TraceStatsBuilder stats,
                  Consumer<TracingSession> stopSession) {
        this.buffers = buffers;
        this.bufferOwners = bufferOwners;
        this.sequences = sequences;
        this.servicePackets = servicePackets;
        this.stats = stats;
        this.stopSession = stopSession;
    }

    /**
     * Everything readable now: header (first time), a clock snapshot when one is due
     * ({@link ClockSnapshotSchedule}), the buffers, stats at the end.
     */
    private long readInto(TracingSession session, PacketSink sink) {
        long now = System.nanoTime();
        long delivered = writeHeaderOnce(session, sink, now);
        boolean ended = session.state == TracingSession.State.DISABLED;
        if (session.clockSnapshots.due(now, ended)) {
            delivered += servicePackets.writeClockSnapshot(ClockReader.snapshot(), sink);
            session.clockSnapshots.taken(now);
        }
        for (int bufferId : session.bufferIds) {
            delivered += buffers.get(bufferId).readAll(sequences, sink, ended);
        }
        if (ended) {
            delivered += servicePackets.writeStats(stats.build(session), sink);
        }
        return delivered;
    }

    private long writeHeaderOnce(TracingSession session, PacketSink sink, long now) {
        if (session.headerPacketsEmitted) {
            return 0;
        }
        session.headerPacketsEmitted = true;
        session.clockSnapshots.taken(now);
        return servicePackets.writeHeader(session, sink);
    }

    /**
     * A file session's first packets go into its file as it starts, before any data source writes.
     * Building them loads the trace format's classes (TracePacket's descriptors): on a cold JVM whose 200
     * threads had just started, that took the service thread 0.6-0.9 s at the first drain, while every
     * commit waited behind it and the SMB filled (benchmarks/README.md).
     */
    void startFile(TracingSession session) throws IOException {
        writeHeaderOnce(session, session.file, System.nanoTime());
        session.file.flush();
    }

    long readBuffers(TracingSession session, PacketSink sink) {
        if (session.config.getWriteIntoFile()) {
            throw new IllegalStateException("session " + session.id + " writes into " + session.config.getOutputPath()
                    + "; read that file instead");
        }
        return readInto(session, sink);
    }

    /**
     * A session that streams into a file must not overwrite what it could have saved: once a sixteenth
     * of one of its buffers, or {@link #DRAIN_BYTES} if less, has filled since the last write, the file
     * gets what is readable now instead of at the next file_write_period. Small, frequent writes keep
     * each pause of chunk moving short (the SMB fills while this thread writes the file), and read the
     * chunks while the copy that put them in the ring is still in the CPU's cache.
     */
    void drainFilledBuffers(CommitRequest request) {
        int checked = -1;
        for (int i = 0; i < request.size(); i++) {
            int bufferId = request.targetBuffer(i);
            if (bufferId == checked) {
                continue;
            }
            checked = bufferId;
            TraceBuffer buffer = buffers.get(bufferId);
            TracingSession owner = bufferOwners.get(bufferId);
            // The second condition keeps chunks that cannot be read yet (a sequence waiting for a patch
            // or a gap) from making every commit drain again.
            if (buffer != null && owner != null && owner.file != null
                    && buffer.used() - buffer.usedAfterLastRead() > Math.min(buffer.capacity() / 16, DRAIN_BYTES)) {
                drainIntoFile(owner);
            }
        }
    }

    /**
     * A write_into_file period: drain what is readable into the file, so the buffers stay bounded, and
     * push it all out, so the file is a whole trace up to here. Also while the session stops (its last
     * flush and scrape still move chunks in), until it is disabled.
     */
    void writeIntoFile(TracingSession session) {
        write(session, true);
    }

    /**
     * Makes room in a session's buffers: what is readable goes to the file writer, whose full 256 KiB
     * buffers are written behind this thread; the rest becomes visible at the next period. Making it
     * visible at every drain would have this thread write every partial buffer itself, and wait for it.
     */
    @Override
    public void drainIntoFile(TracingSession session) {
        write(session, false);
    }

    private void write(TracingSession session, boolean makeVisible) {
        if (writableFile(session) == null) {
            return;
        }
        try {
            readInto(session, session.file);
            if (makeVisible) {
                session.file.flush();
            }
        } catch (UncheckedIOException | IOException e) {
            failed(session, e);
            return;
        }
        wrote(session);
    }

    @Override
    public PacketSink writableFile(TracingSession session) {
        return session.file == null || session.state == TracingSession.State.DISABLED || session.fileWritesStopped
                ? null : session.file;
    }

    @Override
    public void wrote(TracingSession session) {
        long max = session.config.getMaxFileSizeBytes();
        if (max > 0 && session.file.bytes() >= max) {
            LOG.warn("jtrace: session {}: {} reached max_file_size_bytes ({}); stopping the session", session.id,
                    session.config.getOutputPath(), max);
            session.fileWritesStopped = true;
            stopSession.accept(session);
        }
    }

    @Override
    public void failed(TracingSession session, Exception e) {
        LOG.error("jtrace: session {}: writing {} failed, stopping the session", session.id,
                session.config.getOutputPath(), e);
        session.fileWritesStopped = true;
        session.fileFailureLogged = true;
        stopSession.accept(session);
    }

    /** The last read into the file, then close it. Returns an error message, or null. */
    String finishFile(TracingSession session) {
        TraceFileWriter file = session.file;
        session.file = null;
        try (file) {
            readInto(session, file);
            return null;
        } catch (UncheckedIOException | IOException e) {
            LOG.atLevel(session.fileFailureLogged ? Level.DEBUG : Level.ERROR)
                    .log("jtrace: session {}: finishing {} failed", session.id, session.config.getOutputPath(), e);
            return "writing " + session.config.getOutputPath() + " failed: " + e.getMessage();
        } finally {
            // What the file took, not what was given positions: a pipe whose reader went away took less.
            session.fileBytesAtEnd = file.bytesWritten();
        }
    }
}
