package io.jtrace.it;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Emits a slice, then waits (bounded) for the agent's short session to finish its file, then another
 * slice. The file has its header from the session's start, so finished means it ends with the trace
 * stats, which the service writes last (read with the agent's own copy of the trace classes).
 */
public final class SleepingWorkload {
    private SleepingWorkload() {}

    public static void main(String[] args) throws Exception {
        Category app = Category.of("app");
        TrackEvent.begin(app, "before");
        TrackEvent.end(app);
        Path file = Path.of(args[0]);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!finished(file) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(200);
        TrackEvent.begin(app, "after");
        TrackEvent.end(app);
        System.out.println("FILE_SEEN_BEFORE_EXIT=" + finished(file));
    }

    private static boolean finished(Path file) throws IOException {
        if (!Files.exists(file)) {
            return false;
        }
        try {
            List<TracePacket> packets = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
            return !packets.isEmpty() && packets.get(packets.size() - 1).hasTraceStats();
        } catch (IOException partlyWritten) {
            return false;
        }
    }
}
