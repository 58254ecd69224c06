package io.jtrace.agent.trackevent;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the control surfaces read of a track_event session's loss: a live figure while the session runs
 * and stops, read from its writers' counters as they go; the final figure, the one its trace holds,
 * once it stopped. The final figures of the last {@link #STOPPED_SESSIONS_KEPT} stopped sessions are
 * kept for reports of an ended session.
 *
 * <p>Every figure is taken under one lock ({@link #stopped}): a live reading that finds its session
 * stopped meanwhile answers the final figure, which took that reading into account, so no figure shown
 * after a stop is below one shown before it.
 */
final class SessionLosses {
    private static final int STOPPED_SESSIONS_KEPT = 32;

    private final OwnedSequences owned;
    /** Final loss by tracing session id, the last {@link #STOPPED_SESSIONS_KEPT} stopped. Guarded by itself. */
    private final Map<Long, Long> stopped = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > STOPPED_SESSIONS_KEPT;
        }
    };
    /** Sessions uninstalled whose final loss is not recorded yet. Guarded by {@link #stopped}. */
    private final Map<Long, ActiveSession> stopping = new HashMap<>();

    SessionLosses(OwnedSequences owned) {
        this.owned = owned;
    }

    /** Producer thread: {@code session} left its slot; its live figure stays readable until {@link #stopped}. */
    void stopping(ActiveSession session) {
        synchronized (stopped) {
            stopping.put(session.tracingSessionId(), session);
        }
    }

    /** Producer thread, at {@code session}'s stop, once its writers are closed: its final loss, kept and returned. */
    long stopped(ActiveSession session) {
        synchronized (stopped) {
            long lost = session.settledLostEvents(() -> owned.droppedByOpenWriters(session));
            stopping.remove(session.tracingSessionId());
            stopped.put(session.tracingSessionId(), lost);
            return lost;
        }
    }

    /**
     * Any thread: the loss of tracing session {@code tracingSessionId}, looked for first among the
     * {@code running} sessions, or -1 when no session known here has that id.
     */
    long lostEvents(ActiveSession[] running, long tracingSessionId) {
        for (ActiveSession s : running) {
            if (s != null && s.tracingSessionId() == tracingSessionId) {
                long live = s.lostEvents(() -> owned.droppedByOpenWriters(s));
                synchronized (stopped) {
                    return stopped.getOrDefault(tracingSessionId, live);
                }
            }
        }
        synchronized (stopped) {
            ActiveSession s = stopping.get(tracingSessionId);
            if (s != null) {
                return s.lostEvents(() -> owned.droppedByOpenWriters(s));
            }
            return stopped.getOrDefault(tracingSessionId, -1L);
        }
    }
}
