package io.jtrace.jfr.live;

import io.jtrace.jfr.format.DescribedTracks;
import io.jtrace.jfr.format.JfrEventMapper;
import io.jtrace.jfr.format.SequenceWriter;
import io.jtrace.jfr.format.TimeMapping;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.EventSettings;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code jvm.jfr} instance: a {@link RecordingStream} with the session's settings, whose events
 * the stream's own thread writes through {@link JfrEventMapper} into trace writers (one sequence for
 * track events, one per sample type). JFR recordings the user started ({@code -XX:StartFlightRecording},
 * {@code jcmd JFR.start}) are separate recordings and go on unaffected.
 *
 * <p>Stop loses nothing recorded before it: on JDK 20+ {@code RecordingStream.stop()} waits until every
 * recorded event has been delivered; on JDK 17 a {@link StopMarker} is committed and the stream is closed
 * once it has been delivered. When the JVM is exiting, JFR's own shutdown hook ends the stream after
 * its last events, and stop waits for that. Every wait is bounded.
 */
final class JfrRecorder implements DataSourceInstance {
    private static final Logger LOG = LoggerFactory.getLogger(JfrRecorder.class);
    private static final int MAX_INTERNED = 200_000;
    /** Below the service's 5 s wait for data sources to stop, so what arrives is still written. */
    private static final long STOP_WAIT_MILLIS = 3_500;
    private static final MethodHandle STREAM_STOP = lookUpStop();
    private static final AtomicLong SESSIONS = new AtomicLong();

    private final DataSourceContext context;
    private final JfrSettings settings;
    private final ProcessTrack process;
    private final long session = SESSIONS.incrementAndGet();
    private final CountDownLatch markerSeen = new CountDownLatch(1);
    private final CountDownLatch streamClosed = new CountDownLatch(1);
    private final List<TraceWriter> writers = new ArrayList<>();
    private Set<String> enabled;
    /** Application events are enabled by default in a predefined configuration, which does not list them. */
    private boolean acceptUnlisted;
    private RecordingStream stream;
    private JfrEventMapper mapper;
    private boolean stopped;
    private volatile boolean clearRequested;
    private long failures;

    JfrRecorder(DataSourceContext context, JfrSettings settings, ProcessTrack process) {
        this.context = context;
        this.settings = settings;
        this.process = process;
    }

    @Override
    public synchronized void start() {
        TimeMapping time = TimeMapping.monotonic(ClockReader.realtimeMinusMonotonic());
        SequenceWriter events = new SequenceWriter(new TraceWriterOut(newWriter()), time.clockId(), MAX_INTERNED);
        mapper = new JfrEventMapper(new DescribedTracks(process, true, Map.of(), Set.of()), time, events,
                type -> new SequenceWriter(new TraceWriterOut(newWriter()), time.clockId(), MAX_INTERNED));
        enabled = settings.enabledEvents();
        acceptUnlisted = settings.configuration() != null;
        try {
            stream = newStream();
        } catch (IOException | ParseException | RuntimeException e) {
            LOG.warn("jtrace jvm.jfr: cannot start a JFR recording stream: {}", e.toString());
            return;
        }
        stream.onEvent(this::onEvent);
        // startAsync() would dispatch on a non-daemon thread, which keeps the JVM from exiting (and so
        // from running the shutdown hook that stops the session): dispatch on a daemon thread instead.
        RecordingStream rs = stream;
        CountDownLatch running = new CountDownLatch(1);
        FlightRecorderListener listener = new FlightRecorderListener() {
            @Override
            public void recordingStateChanged(Recording recording) {
                if (recording.getState() == RecordingState.RUNNING) {
                    running.countDown();
                }
            }
        };
        FlightRecorder.addListener(listener);
        Thread dispatcher = new Thread(() -> {
            try {
                rs.start();
            } catch (RuntimeException e) {
                LOG.warn("jtrace jvm.jfr: the JFR recording stream failed: {}", e.toString());
            } finally {
                // A stream that failed to start never runs: stop start()'s wait at once (its lock is held).
                running.countDown();
            }
        }, "jtrace-jfr");
        dispatcher.setDaemon(true);
        dispatcher.start();
        // rs.start() starts the stream's recording on the dispatcher thread: wait (bounded) until it
        // runs, so what the application does once the session has started is recorded.
        try {
            if (!running.await(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.warn("jtrace jvm.jfr: the JFR recording stream did not start within {} ms", STOP_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            FlightRecorder.removeListener(listener);
        }
    }


    private TraceWriter newWriter() {
        TraceWriter w = context.newTraceWriter();
        writers.add(w);
        return w;
    }

    private RecordingStream newStream() throws IOException, ParseException {
        RecordingStream rs;
        if (settings.configuration() != null) {
            rs = new RecordingStream(Configuration.getConfiguration(settings.configuration()));
        } else {
            rs = new RecordingStream();
            for (Map.Entry<String, Map<String, String>> e : settings.events().entrySet()) {
                EventSettings es = rs.enable(e.getKey());
                e.getValue().forEach(es::with);
            }
        }
        rs.enable(StopMarker.class);
        rs.onClose(streamClosed::countDown);
        // Deliver promptly: a live session wants events while it runs, not a chunk later.
        rs.setMaxAge(Duration.ofSeconds(10));
        return rs;
    }

    private void onEvent(RecordedEvent event) {
        if (event.getEventType().getName().equals("jtrace.StopMarker")) {
            if (event.getLong("session") == session) {
                markerSeen.countDown();
            }
            return;
        }
        String type = event.getEventType().getName();
        if (!enabled.contains(type) && !(acceptUnlisted && !type.startsWith("jdk."))) {
            return; // another recording's event
        }
        synchronized (this) {
            if (stopped) {
                return;
            }
            if (clearRequested) {
                clearRequested = false;
                mapper.clearIncrementalState();
            }
            try {
                mapper.write(event);
            } catch (RuntimeException e) {
                // A half-written packet is dropped (counted by its writer); the sequences start over so
                // nothing refers to what it may have interned.
                for (TraceWriter w : writers) {
                    w.abortPacket();
                }
                mapper.clearIncrementalState();
                if (failures++ == 0) {
                    LOG.warn("jtrace jvm.jfr: internal error of jtrace, could not write a {} event at {}",
                            event.getEventType().getName(), event.getStartTime(), e);
                }
            }
        }
    }

    @Override
    public synchronized void flush() {
        for (TraceWriter w : writers) {
            w.flush();
        }
    }

    @Override
    public void clearIncrementalState() {
        clearRequested = true;
    }

    @Override
    public void stop() {
        RecordingStream rs;
        synchronized (this) {
            rs = stream;
        }
        if (rs != null) {
            drainAndClose(rs);
            warnAboutEventsNeverRegistered();
        }
        synchronized (this) {
            stopped = true;
            if (failures > 1) {
                LOG.warn("jtrace jvm.jfr: internal error of jtrace, {} events could not be written (the first is logged above)",
                        failures);
            }
            if (mapper != null) {
                LOG.debug("jtrace jvm.jfr: wrote {} events: {}", mapper.writtenTotal(), mapper.writtenPerType());
            }
            for (TraceWriter w : writers) {
                w.flush();
                w.close();
            }
            writers.clear();
        }
    }

    /**
     * At the end, not the start: an application's own event type is registered only once its class is
     * loaded, often after the session started. A name still unknown now was most likely misspelt, which
     * JFR itself ignores without a word.
     */
    private void warnAboutEventsNeverRegistered() {
        try {
            List<String> unknown = settings.eventsNotAmong(FlightRecorder.getFlightRecorder().getEventTypes()
                    .stream().map(EventType::getName).collect(Collectors.toSet()));
            if (!unknown.isEmpty()) {
                LOG.warn("jtrace jvm.jfr: no event type named {} was registered while the session ran: misspelt?"
                        + " (JFR ignores the settings of an event it does not know)", unknown);
            }
        } catch (RuntimeException e) {
            // JFR shutting down with the JVM: nothing to say then.
            LOG.debug("jtrace jvm.jfr: could not list JFR's event types at stop", e);
        }
    }

    private void drainAndClose(RecordingStream rs) {
        try {
            if (jvmShuttingDown()) {
                // JFR's own shutdown hook stops every recording, this stream's too, and the stream then
                // delivers the last of its events and ends: wait for that (a marker committed now could
                // come after JFR has shut down, and a stop would race its hook).
                // (Not awaitTermination(Duration): JDK 17's throws for any timeout.)
                streamClosed.await(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } else if (STREAM_STOP != null) {
                STREAM_STOP.invoke(rs);
            } else {
                StopMarker marker = new StopMarker();
                marker.session = session;
                marker.commit();
                if (!markerSeen.await(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("jtrace jvm.jfr: JFR did not deliver its last events within {} ms of stop", STOP_WAIT_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            LOG.warn("jtrace jvm.jfr: stopping the JFR stream failed: {}", e.toString());
        } finally {
            rs.close();
        }
    }

    private static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    /** {@code RecordingStream.stop()} (JDK 20+), which waits until every recorded event is delivered. */
    private static MethodHandle lookUpStop() {
        try {
            return MethodHandles.publicLookup().findVirtual(RecordingStream.class, "stop",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
