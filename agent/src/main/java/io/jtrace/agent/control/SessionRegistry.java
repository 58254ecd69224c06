package io.jtrace.agent.control;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jmx.DataSourceInfo;
import io.jtrace.jmx.DumpInfo;
import io.jtrace.jmx.ProducerInfo;
import io.jtrace.jmx.SessionInfo;
import io.jtrace.jmx.TracingControl;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.InvalidConfigException;
import io.jtrace.service.ServiceLimitException;
import io.jtrace.service.SessionNameTakenException;
import io.jtrace.service.TracingService;
import io.jtrace.service.status.DumpResult;
import io.jtrace.service.status.ProducerStatus;
import io.jtrace.service.status.ServiceStatus;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongUnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * The agent's one list of sessions, behind every control surface: the agent's options, jcmd, the
 * {@code io.jtrace:type=Tracing} MBean and the CLI all start, stop, flush, dump and list the same
 * sessions here. Its methods may be called from any thread but the service's (they wait for it).
 */
public final class SessionRegistry implements TracingControl {
    /** How long a stop waits for the trace file to be complete. */
    static final long STOP_TIMEOUT_MS = 30_000;
    /** How long the JVM's exit waits for every session's file. */
    static final long SHUTDOWN_TIMEOUT_MS = 15_000;
    static final long SERVICE_TIMEOUT_MS = 10_000;
    /** Ended sessions kept in {@link #getSessions()}, so the file of one that ended by itself can be found. */
    static final int ENDED_KEPT = 16;

    /** Reads the requests of the text surfaces: agent options and text TraceConfigs. */
    public interface RequestParser {
        /** Agent-style options ({@code sources=...,duration=30s,file=...}); IllegalArgumentException naming what is wrong. */
        SessionRequest fromOptions(String options);

        /** A Perfetto text TraceConfig and an optional file; IllegalArgumentException naming what is wrong. */
        SessionRequest fromConfig(String traceConfigText, String file);
    }

    private final TracingService service;
    private final RequestParser parser;
    /** Track events a session (by the service's id) lost so far, -1 if unknown: see TrackEventDataSource#lostEvents. */
    private final LongUnaryOperator eventsLost;
    private final PipelineWarmUp warmUp;
    private final Map<String, AgentSession> running = new LinkedHashMap<>();
    /**
     * Names and files of sessions starting or running: taken before a session starts, so two starts at
     * once (jcmd and JMX) can neither share a name nor write one file, and given back when it ends.
     */
    private final Set<String> namesTaken = new HashSet<>();
    private final Map<Path, String> filesTaken = new HashMap<>();
    private final Deque<SessionInfo> ended = new ArrayDeque<>();
    private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();
    private int nextNumber = 1;
    private boolean hookInstalled;

    public SessionRegistry(TracingService service, RequestParser parser, LongUnaryOperator eventsLost) {
        this(service, parser, eventsLost, false);
    }

    /**
     * {@code warmUp}: before the first session that records track events, run the pipeline once in a
     * private session ({@link PipelineWarmUp}), as the agent does; tests of the registry itself do not.
     */
    public SessionRegistry(TracingService service, RequestParser parser, LongUnaryOperator eventsLost, boolean warmUp) {
        this.service = service;
        this.parser = parser;
        this.eventsLost = eventsLost;
        this.warmUp = warmUp ? new PipelineWarmUp(service) : null;
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        listeners.add(listener);
    }

    // ------------------------------------------------------------------ start

    @Override
    public SessionInfo start(String options) {
        return start(parser.fromOptions(options));
    }

    @Override
    public SessionInfo startWithConfig(String traceConfigText, String file) {
        return start(parser.fromConfig(traceConfigText, file));
    }

    /** Starts a session; returns once its data sources have started. */
    public SessionInfo start(SessionRequest request) {
        String name;
        Path file;
        synchronized (this) {
            name = request.name() != null ? request.name() : nextName();
            if (namesTaken.contains(name)) {
                throw new IllegalArgumentException("a session named '" + name + "' is already running");
            }
            file = request.file() != null ? request.file() : defaultFile(name);
            String writer = filesTaken.get(key(file));
            if (writer != null) {
                giveBackNumber(request, name);
                throw new IllegalArgumentException("session '" + writer + "' already writes " + file
                        + "; give this one another file");
            }
            namesTaken.add(name);
            filesTaken.put(key(file), name);
        }
        if (warmUp != null && recordsTrackEvents(request.config())) {
            warmUp.runOnce(file);
        }
        AgentSession session;
        try {
            session = AgentSession.start(service, name, request.mode(), file, request.config());
        } catch (ExecutionException e) {
            release(name, file);
            giveBackNumber(request, name);
            throw startFailure(e.getCause());
        } catch (TimeoutException e) {
            release(name, file);
            throw new IllegalStateException("session '" + name + "' did not start within 10 s");
        } catch (InterruptedException e) {
            release(name, file);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting session '" + name + "'");
        } catch (Exception e) {
            release(name, file);
            giveBackNumber(request, name);
            throw startFailure(e);
        }
        synchronized (this) {
            running.put(name, session);
            installShutdownHook();
        }
        session.ended().thenAccept(error -> ended(session, error));
        SessionInfo info = info(session);
        LoggerFactory.getLogger(SessionRegistry.class).info("jtrace: started {}", SessionInfos.line(info));
        for (SessionListener listener : listeners) {
            listener.started(info);
        }
        return info;
    }

    private static boolean recordsTrackEvents(TraceConfig config) {
        for (TraceConfig.DataSource ds : config.getDataSourcesList()) {
            if (ds.getConfig().getName().equals(TrackEventDataSource.NAME)) {
                return true;
            }
        }
        return false;
    }

    private synchronized void release(String name, Path file) {
        namesTaken.remove(name);
        filesTaken.remove(key(file), name);
    }

    /** A file as compared between sessions and dumps. */
    private static Path key(Path file) {
        return file.toAbsolutePath().normalize();
    }

    private static RuntimeException startFailure(Throwable cause) {
        if (cause instanceof InvalidConfigException || cause instanceof SessionNameTakenException
                || cause instanceof IllegalArgumentException) {
            return new IllegalArgumentException(cause.getMessage());
        }
        if (cause instanceof ServiceLimitException || cause instanceof IllegalStateException) {
            return new IllegalStateException(cause.getMessage());
        }
        LoggerFactory.getLogger(SessionRegistry.class).error("jtrace: starting a session failed", cause);
        return new IllegalStateException("starting the session failed: " + cause);
    }

    /**
     * A start that was refused does not use up the number in its generated name: the next session gets
     * it. (Not after a start that timed out: that session may still come up under its name.)
     */
    private synchronized void giveBackNumber(SessionRequest request, String name) {
        if (request.name() == null && name.equals("session-" + (nextNumber - 1))) {
            nextNumber--;
        }
    }

    private String nextName() {
        String name;
        do {
            name = "session-" + nextNumber++;
        } while (running.containsKey(name));
        return name;
    }

    private static Path defaultFile(String name) {
        String time = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return Path.of("jtrace-" + ProcessHandle.current().pid() + "-" + time + "-" + name + ".pftrace");
    }

    /** One hook for every session: at JVM exit each running session is stopped and its file completed. */
    private void installShutdownHook() {
        if (hookInstalled) {
            return;
        }
        hookInstalled = true;
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopAllAtExit, "jtrace-shutdown"));
    }

    /** What the shutdown hook runs (not private: a test runs it as the JVM would at exit). */
    void stopAllAtExit() {
        List<AgentSession> sessions;
        synchronized (this) {
            sessions = new ArrayList<>(running.values());
        }
        for (AgentSession s : sessions) {
            s.requestStop();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_TIMEOUT_MS);
        for (AgentSession s : sessions) {
            try {
                // An error the session ended with is logged by the session itself (AgentSession.finish), once.
                s.ended().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LoggerFactory.getLogger(SessionRegistry.class).error("jtrace: trace file {} not finished within {} ms",
                        s.file, SHUTDOWN_TIMEOUT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                LoggerFactory.getLogger(SessionRegistry.class).error("jtrace: writing {} failed", s.file, e.getCause());
            }
        }
    }

    /** The session ended (stopped, its duration elapsed, or its file failed): runs on the service thread. */
    private void ended(AgentSession session, String error) {
        SessionInfo info = SessionInfos.of(session, session.finalStatus(), "STOPPED", error,
                eventsLost.applyAsLong(session.id()));
        synchronized (this) {
            running.remove(session.name, session);
            namesTaken.remove(session.name);
            filesTaken.remove(key(session.file), session.name);
            ended.addFirst(info);
            while (ended.size() > ENDED_KEPT) {
                ended.removeLast();
            }
        }
        // Without the error, which the session logged already (as an error, naming the file).
        LoggerFactory.getLogger(SessionRegistry.class).info("jtrace: ended {}", SessionInfos.line(info, false));
        session.endInfo.complete(info);
        for (SessionListener listener : listeners) {
            try {
                listener.stopped(info);
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(SessionRegistry.class).warn("jtrace: a session listener failed", e);
            }
        }
    }

    // ------------------------------------------------------------------ stop, flush, dump

    @Override
    public SessionInfo stop(String name) {
        AgentSession session = select(name);
        SessionInfo info;
        try {
            info = session.stopAndWait(STOP_TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping session '" + session.name + "'");
        }
        if (info == null) {
            throw new IllegalStateException("session '" + session.name + "' did not finish its file " + session.file
                    + " within " + STOP_TIMEOUT_MS + " ms");
        }
        if (info.error() != null && !info.error().isEmpty()) {
            // Ended, but its file is not whole: a command that reported success here would hide that.
            throw new IllegalStateException("session '" + session.name + "' stopped, but " + info.error());
        }
        return info;
    }

    @Override
    public SessionInfo flush(String name) {
        AgentSession session = select(name);
        boolean complete;
        try {
            complete = session.flush();
        } catch (Exception e) {
            throw new IllegalStateException("flushing session '" + session.name + "' failed: " + rootMessage(e));
        }
        if (!complete) {
            throw new IllegalStateException("session '" + session.name + "': not every producer answered the flush within "
                    + AgentSession.FLUSH_TIMEOUT_MS + " ms");
        }
        return info(session);
    }

    @Override
    public DumpInfo dump(String name, String file) {
        if (file == null || file.isBlank()) {
            throw new IllegalArgumentException("dump needs a file to write");
        }
        AgentSession session = select(name);
        if (session.mode != SessionRequest.Mode.RING) {
            throw new IllegalStateException("session '" + session.name + "' streams into " + session.file
                    + " already; dump works on ring-mode sessions (start one with the option 'ring')");
        }
        Path path = Path.of(file).toAbsolutePath();
        String writer;
        synchronized (this) {
            writer = filesTaken.get(key(path));
        }
        if (writer != null) {
            throw new IllegalArgumentException("session '" + writer + "' writes " + path + "; dump into another file");
        }
        DumpResult result = await(service.dump(session.id(), path), "dumping session '" + session.name + "'");
        DumpInfo info = new DumpInfo(session.name, path.toString(), result.bytes(), result.packets());
        return info;
    }

    /** The session named, or the only one running when {@code name} is empty. */
    private synchronized AgentSession select(String name) {
        if (name == null || name.isBlank()) {
            if (running.isEmpty()) {
                throw new IllegalStateException("no tracing session is running");
            }
            if (running.size() > 1) {
                throw new IllegalArgumentException(running.size() + " sessions are running ("
                        + String.join(", ", running.keySet()) + "): name one");
            }
            return running.values().iterator().next();
        }
        AgentSession session = running.get(name.trim());
        if (session == null) {
            for (SessionInfo info : ended) {
                if (info.name().equals(name.trim())) {
                    throw new IllegalArgumentException("session '" + info.name() + "' has already ended"
                            + (info.file() == null || info.file().isEmpty() ? "" : "; its trace is " + info.file()));
                }
            }
            throw new IllegalArgumentException("no running session named '" + name.trim() + "'"
                    + (running.isEmpty() ? "" : " (running: " + String.join(", ", running.keySet()) + ")"));
        }
        return session;
    }

    // ------------------------------------------------------------------ attributes

    @Override
    public List<SessionInfo> getSessions() {
        ServiceStatus status = status();
        List<SessionInfo> result = new ArrayList<>();
        synchronized (this) {
            for (AgentSession session : running.values()) {
                var s = status.session(session.id());
                result.add(SessionInfos.of(session, s, SessionInfos.state(s), "", eventsLost.applyAsLong(session.id())));
            }
            result.addAll(ended);
        }
        return result;
    }

    @Override
    public List<ProducerInfo> getProducers() {
        List<ProducerInfo> result = new ArrayList<>();
        for (ProducerStatus p : status().producers()) {
            result.add(new ProducerInfo(p.id(), p.name(), p.pid(), p.uid(), p.dataSources()));
        }
        return result;
    }

    @Override
    public List<DataSourceInfo> getDataSources() {
        List<DataSourceInfo> result = new ArrayList<>();
        for (ProducerStatus p : status().producers()) {
            for (String source : p.dataSources()) {
                result.add(new DataSourceInfo(source, p.name()));
            }
        }
        return result;
    }

    private SessionInfo info(AgentSession session) {
        var s = status().session(session.id());
        return SessionInfos.of(session, s, SessionInfos.state(s), "", eventsLost.applyAsLong(session.id()));
    }

    private ServiceStatus status() {
        return await(service.status(), "reading the service's status");
    }

    private static <T> T await(Future<T> future, String what) {
        try {
            return future.get(SERVICE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException) {
                throw new IllegalArgumentException(what + ": " + cause.getMessage());
            }
            throw new IllegalStateException(what + " failed: " + rootMessage(cause));
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " took more than " + SERVICE_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " was interrupted");
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable cause = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
