package io.jtrace.jmx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Looks at the running sessions' loss counters once a second and reports what grew, for the
 * {@code data lost} notification. It runs only while sessions exist, so an idle agent has no timer.
 * What counts as lost: writer drops (shared memory full), the track events they and the agent counted,
 * and discarded chunks in every session, and overwritten chunks in sessions that stream into a file (a
 * ring-mode session overwrites its oldest data by design).
 */
final class LossWatcher implements AutoCloseable {
    static final long PERIOD_MS = 1000;

    /** What a session lost since the previous look. */
    record Growth(long chunksLost, long writerPacketLoss, long eventsLost) {
        static final Growth NONE = new Growth(0, 0, 0);
    }

    interface Sink {
        void lost(SessionInfo session, Growth growth);
    }

    private final TracingControl control;
    private final Sink sink;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jtrace-jmx-losses");
        t.setDaemon(true);
        return t;
    });
    /** Session id → {chunks lost, writer drops, events lost} at the last look. Timer thread only. */
    private final Map<Long, long[]> seen = new HashMap<>();
    private boolean scheduled;

    LossWatcher(TracingControl control, Sink sink) {
        this.control = control;
        this.sink = sink;
    }

    /** A session started: look periodically until none is left. */
    synchronized void watch() {
        if (!scheduled && !timer.isShutdown()) {
            scheduled = true;
            timer.schedule(this::look, PERIOD_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void look() {
        List<SessionInfo> sessions;
        try {
            sessions = control.getSessions();
        } catch (RuntimeException e) {
            sessions = List.of();
        }
        Map<Long, long[]> now = new HashMap<>();
        for (SessionInfo s : sessions) {
            long[] counts = {s.chunksLost(), s.writerPacketLoss(), Math.max(0, s.eventsLost())};
            long[] before = seen.getOrDefault(s.id(), new long[3]);
            if (counts[0] > before[0] || counts[1] > before[1] || counts[2] > before[2]) {
                sink.lost(s, new Growth(Math.max(0, counts[0] - before[0]), Math.max(0, counts[1] - before[1]),
                        Math.max(0, counts[2] - before[2])));
            }
            now.put(s.id(), counts);
        }
        seen.clear();
        seen.putAll(now);
        synchronized (this) {
            scheduled = false;
            // Ended sessions stay listed (STOPPED); an idle agent must not keep a timer for them.
            if (sessions.stream().anyMatch(s -> !"STOPPED".equals(s.state()))) {
                watch();
            }
        }
    }

    @Override
    public synchronized void close() {
        timer.shutdownNow();
    }
}
