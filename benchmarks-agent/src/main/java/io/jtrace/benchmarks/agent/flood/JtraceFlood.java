package io.jtrace.benchmarks.agent.flood;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;

/** The flood with jtrace's slice: begin + end, interned name and category. Needs the agent started. */
public final class JtraceFlood {
    /** A compile-time constant: the harness reads it without loading this class (and the jtrace API). */
    static final String CATEGORY_NAME = "flood";
    private static final Category CATEGORY = Category.of(CATEGORY_NAME);

    private JtraceFlood() {}

    public static void main(String[] args) throws InterruptedException {
        if (!CATEGORY.isEnabled()) {
            throw new IllegalStateException("jtrace is not tracing: start the JVM with -javaagent:jtrace.jar=start,file=...");
        }
        Flood.run(args, () -> {
            TrackEvent.begin(CATEGORY, "slice");
            TrackEvent.end(CATEGORY);
        });
    }
}
