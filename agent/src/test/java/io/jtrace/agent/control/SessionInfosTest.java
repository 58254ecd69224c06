package io.jtrace.agent.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.jmx.BufferInfo;
import io.jtrace.jmx.SessionInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one line status, jcmd and the logs show per session: losses named for what they are. */
class SessionInfosTest {
    private static SessionInfo session(String mode, long overwritten, long discarded, long eventsLost) {
        BufferInfo buffer = new BufferInfo(1, 1 << 20, 1 << 19, 50, "RING", 1000, 0, 10, overwritten, discarded, 2, 0, 0);
        return new SessionInfo("s", 3, "STARTED", mode, "sources=track_event", "/tmp/s.pftrace", 123, 0,
                List.of("track_event@jvm:1"), List.of(buffer), SessionInfo.chunksLost(mode, List.of(buffer)), 2, eventsLost, "");
    }

    /** duration_ms and size_kb are uint32: values past 2^31 are shown as they are, not as negative or unlimited. */
    @Test
    void aConfigsSummaryShowsItsUnsignedDurationAndSizeWhole() {
        io.jtrace.protos.TraceConfig config = io.jtrace.protos.TraceConfig.newBuilder()
                .addBuffers(io.jtrace.protos.TraceConfig.BufferConfig.newBuilder().setSizeKb((int) 4_294_967_295L))
                .setDurationMs((int) 4_294_967_295L)
                .build();
        assertEquals("sources= buffers=4294967295kb ring duration=4294967295ms", SessionInfos.summary(config));
    }

    @Test
    void aStreamedSessionsLineCountsTheEventsItLostAndEveryChunkLost() {
        assertEquals("session 's' (id 3): STARTED, file, sources=track_event, file /tmp/s.pftrace, 123 bytes written, "
                + "buffer 1024kb 50% full, track events lost 5000, chunks lost 7, writer drops 2",
                SessionInfos.line(session("file", 4, 3, 5000)));
    }

    @Test
    void aRingSessionsOverwrittenOldestChunksAreNotCalledLost() {
        assertEquals("session 's' (id 3): STARTED, ring, sources=track_event, file /tmp/s.pftrace, 123 bytes written, "
                + "buffer 1024kb 50% full, oldest chunks overwritten 4, chunks lost 3, writer drops 2",
                SessionInfos.line(session("ring", 4, 3, -1)));
    }
}
