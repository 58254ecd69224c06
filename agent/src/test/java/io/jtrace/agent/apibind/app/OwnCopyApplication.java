package io.jtrace.agent.apibind.app;

import io.jtrace.api.AsyncTrack;
import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.util.function.Function;

/**
 * Traced code as a web application would be, loaded by a class loader that loads its own copy of the
 * API first. Reached from the test only through JDK types: it names no class of the test's copy.
 */
public final class OwnCopyApplication implements Function<String, Object> {
    private Category traced;
    private Category untraced;

    @Override
    public Object apply(String step) {
        switch (step) {
            case "prepare" -> {
                traced = Category.of("own-copy");
                untraced = Category.of("own-copy-off");
                return traced.isEnabled();
            }
            case "enabled" -> {
                return new boolean[] {traced.isEnabled(), untraced.isEnabled()};
            }
            case "api class" -> {
                return Category.class;
            }
            case "emit" -> {
                TrackEvent.begin(traced, "own-copy/plain");
                TrackEvent.end(traced);
                try (Slice s = TrackEvent.slice(traced, "own-copy/closed")) {
                    Thread.onSpinWait();
                }
                long flow = TrackEvent.newFlowId();
                TrackEvent.event(traced).arg("n", 7).arg("s", "text").arg("d", 1.5).arg("b", true).flow(flow)
                        .begin("own-copy/annotated");
                TrackEvent.event(traced).end();
                AsyncTrack track = AsyncTrack.named("own-copy request");
                try (Slice s = TrackEvent.event(traced).on(track).terminateFlow(flow).slice("own-copy/async")) {
                    Thread.onSpinWait();
                }
                TrackEvent.counter(traced, "own-copy counter", 42);
                TrackEvent.instant(untraced, "own-copy/never");
                return new long[] {track.uuid(), flow};
            }
            default -> throw new IllegalArgumentException(step);
        }
    }
}
