package io.jtrace.it;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;

/** Emits a slice, then waits (bounded) for the agent's short session to write its file, then another slice. */
public final class SleepingWorkload {
    private SleepingWorkload() {}

    public static void main(String[] args) throws Exception {
        Category app = Category.of("app");
        TrackEvent.begin(app, "before");
        TrackEvent.end(app);
        Path file = Path.of(args[0]);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!(Files.exists(file) && Files.size(file) > 0) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(200);
        TrackEvent.begin(app, "after");
        TrackEvent.end(app);
        System.out.println("FILE_SEEN_BEFORE_EXIT=" + Files.exists(file));
    }
}
