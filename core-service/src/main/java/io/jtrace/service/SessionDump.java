package io.jtrace.service;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.service.output.WholeTraceFile;
import io.jtrace.service.status.DumpResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Writes a running session's trace into a file while the session goes on (like {@code JFR.dump}): on
 * the service thread its buffers are copied and everything the file needs from the service's state is
 * taken (the session's config and start clocks, its stats, the pid and uid of each producer); the copy
 * is then read out as a whole trace and written on a thread of its own, so a dump of a large buffer
 * holds the service thread only for the copy, not for the file. The session's own read-out later sees
 * nothing of the dump.
 */
final class SessionDump {
    /** One short-lived thread per dump: dumps are rare, and none should wait for another. */
    static final Executor WRITER = task -> {
        Thread t = new Thread(task, "jtrace-dump");
        t.setDaemon(true);
        t.start();
    };

    private final Map<Integer, TraceBuffer> buffers;
    private final SequenceRegistry sequences;
    private final ServicePackets servicePackets;
    private final TraceStatsBuilder stats;

    SessionDump(Map<Integer, TraceBuffer> buffers, SequenceRegistry sequences, ServicePackets servicePackets,
                TraceStatsBuilder stats) {
        this.buffers = buffers;
        this.sequences = sequences;
        this.servicePackets = servicePackets;
        this.stats = stats;
    }

    /**
     * Fails for a session that cannot be dumped: one that streams into a file or has stopped. Checked
     * before the dump flushes and scrapes anything: a scrape's copy of a complete chunk, read into the
     * file before that chunk's commit arrives, would make the commit look late and be discarded as lost.
     */
    static void checkDumpable(TracingSession session) {
        if (session.config.getWriteIntoFile()) {
            throw new IllegalStateException("session " + session.id + " streams into " + session.config.getOutputPath()
                    + "; that file already has its trace (flush, then read it)");
        }
        if (session.state == TracingSession.State.DISABLED) {
            throw new IllegalStateException("session " + session.id + " has stopped; its trace is written at its end");
        }
    }

    /** Service thread: copies what the dump needs, of a session {@link #checkDumpable} has let through. */
    Prepared prepare(TracingSession session, Path file) {
        List<TraceBuffer> copies = new ArrayList<>();
        Map<Integer, int[]> producers = new HashMap<>();
        for (int bufferId : session.bufferIds) {
            TraceBuffer copy = buffers.get(bufferId).copy(sequences);
            for (int producerId : copy.producerIds()) {
                producers.computeIfAbsent(producerId, id -> new int[] {sequences.pid(id), sequences.uid(id), sequences.trusted(id) ? 1 : 0});
            }
            copies.add(copy);
        }
        return new Prepared(session.id, session.config, session.startClocks, stats.build(session), copies,
                new FrozenIdentity(producers), servicePackets, file);
    }

    /** A dump ready to be written, on any one thread: it shares nothing with the service. */
    static final class Prepared {
        private final long sessionId;
        private final TraceConfig config;
        private final ClockSnapshot startClocks;
        private final TraceStats stats;
        private final List<TraceBuffer> copies;
        private final SequenceIdentity identity;
        private final ServicePackets servicePackets;
        private final Path file;

        Prepared(long sessionId, TraceConfig config, ClockSnapshot startClocks, TraceStats stats,
                 List<TraceBuffer> copies, SequenceIdentity identity, ServicePackets servicePackets, Path file) {
            this.sessionId = sessionId;
            this.config = config;
            this.startClocks = startClocks;
            this.stats = stats;
            this.copies = copies;
            this.identity = identity;
            this.servicePackets = servicePackets;
            this.file = file;
        }

        DumpResult write() {
            // Whole or not at all: a failed dump leaves no partial file behind.
            try (WholeTraceFile whole = WholeTraceFile.beside(file)) {
                TraceFileWriter out = whole.writer();
                servicePackets.writeHeader(startClocks, config, out);
                servicePackets.writeClockSnapshot(ClockReader.snapshot(), out);
                for (TraceBuffer copy : copies) {
                    copy.readAll(identity, out, true);
                }
                servicePackets.writeStats(stats, out);
                whole.commit();
                return new DumpResult(sessionId, file, out.bytes(), out.packets());
            } catch (IOException | UncheckedIOException e) {
                throw new InvalidConfigException("cannot write the dump to '" + file + "': " + reason(e));
            }
        }
    }

    /** Pids, uids and trust taken on the service thread; sequence ids are already fixed in the copies. */
    private static final class FrozenIdentity implements SequenceIdentity {
        private final Map<Integer, int[]> producers;

        FrozenIdentity(Map<Integer, int[]> producers) {
            this.producers = producers;
        }

        @Override
        public int sequenceId(int producerId, int writerId) {
            throw new IllegalStateException("sequence " + producerId + "/" + writerId + " has no id in the dump's copy");
        }

        @Override
        public int pid(int producerId) {
            return producers.get(producerId)[0];
        }

        @Override
        public int uid(int producerId) {
            return producers.get(producerId)[1];
        }

        @Override
        public boolean trusted(int producerId) {
            return producers.get(producerId)[2] != 0;
        }
    }

    /**
     * Why a write failed, in words: a file-system exception's message is often just the path (a missing
     * or unmakeable directory gives "/proc/nope"), so its reason, or else its kind ("file already
     * exists", "no such file"), is put before the path.
     */
    static String reason(Exception e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        if (cause instanceof FileAlreadyExistsException f && f.getFile() != null
                && Files.isRegularFile(Path.of(f.getFile()))) {
            return "not a directory: " + f.getFile(); // a directory on the way is a file
        }
        if (cause instanceof FileSystemException f) {
            String why = f.getReason() != null ? f.getReason()
                    : f.getClass().getSimpleName().replaceAll("Exception$", "").replaceAll("([a-z])([A-Z])", "$1 $2")
                            .toLowerCase(Locale.ROOT);
            return why + ": " + f.getFile();
        }
        return String.valueOf(cause.getMessage());
    }
}
