package io.jtrace.jmx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link TracingControl} whose sessions the test sets; records what was asked. */
final class FakeControl implements TracingControl {
    final List<SessionListener> listeners = new CopyOnWriteArrayList<>();
    volatile List<SessionInfo> sessions = List.of();
    final List<String> calls = new CopyOnWriteArrayList<>();

    static SessionInfo session(String name, String mode, long overwritten, long discarded, long writerLoss) {
        return session(name, mode, overwritten, discarded, writerLoss, -1);
    }

    static SessionInfo session(String name, String mode, long overwritten, long discarded, long writerLoss,
                               long eventsLost) {
        BufferInfo buffer = new BufferInfo(1, 1 << 20, 1 << 19, 50, "RING", 1000, 0, 10, overwritten, discarded,
                writerLoss, 0, 0);
        return new SessionInfo(name, 7, "STARTED", mode, "sources=track_event", "/tmp/" + name + ".pftrace", 123, 0,
                List.of("track_event@jvm:1"), List.of(buffer), SessionInfo.chunksLost(mode, List.of(buffer)), writerLoss,
                eventsLost, "");
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        listeners.add(listener);
    }

    @Override
    public List<SessionInfo> getSessions() {
        return sessions;
    }

    @Override
    public List<ProducerInfo> getProducers() {
        return List.of(new ProducerInfo(1, "jvm:1", 1, 0, List.of("track_event", "jvm.gc")));
    }

    @Override
    public List<DataSourceInfo> getDataSources() {
        return List.of(new DataSourceInfo("track_event", "jvm:1"), new DataSourceInfo("jvm.gc", "jvm:1"));
    }

    @Override
    public SessionInfo start(String options) {
        calls.add("start " + options);
        if (options.contains("bad")) {
            throw new IllegalArgumentException("unknown jtrace option 'bad'", new CustomFailure());
        }
        SessionInfo s = session("s", "file", 0, 0, 0);
        for (SessionListener l : listeners) {
            l.started(s);
        }
        return s;
    }

    @Override
    public SessionInfo startWithConfig(String traceConfigText, String file) {
        calls.add("config " + file);
        throw new CustomFailure();
    }

    @Override
    public SessionInfo stop(String name) {
        calls.add("stop " + name);
        SessionInfo s = session(name, "file", 0, 0, 0);
        for (SessionListener l : new ArrayList<>(listeners)) {
            l.stopped(s);
        }
        return s;
    }

    @Override
    public SessionInfo flush(String name) {
        calls.add("flush " + name);
        return session(name, "file", 0, 0, 0);
    }

    @Override
    public DumpInfo dump(String name, String file) {
        calls.add("dump " + name + " " + file);
        return new DumpInfo(name, file, 10, 2);
    }

    /** An exception class a remote client would not have. */
    static final class CustomFailure extends RuntimeException {
        CustomFailure() {
            super("the service said no");
        }
    }
}
