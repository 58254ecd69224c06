package io.jtrace.service.status;

import java.util.List;

/** What the service holds at one moment: its sessions and its producers (for control surfaces such as JMX). */
public record ServiceStatus(List<SessionStatus> sessions, List<ProducerStatus> producers) {
    public ServiceStatus {
        sessions = List.copyOf(sessions);
        producers = List.copyOf(producers);
    }

    /** The session with this id, or null. */
    public SessionStatus session(long id) {
        for (SessionStatus s : sessions) {
            if (s.id() == id) {
                return s;
            }
        }
        return null;
    }
}
