package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;

/** Emits a slice, sleeps for {@code args[0]} ms (past the end of a short session), emits another, and says it ended. */
public final class OutlivesItsSession {
    private OutlivesItsSession() {}

    public static void main(String[] args) throws InterruptedException {
        Category app = Category.of("app");
        TrackEvent.begin(app, "before");
        TrackEvent.end(app);
        Thread.sleep(Long.parseLong(args[0]));
        TrackEvent.begin(app, "after");
        TrackEvent.end(app);
        System.out.println("APPLICATION_ENDED=true");
    }
}
