package io.jtrace.api;

import io.jtrace.api.spi.TrackEventBackend;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * How the tracing agent reaches into the API's state: install its backend, flip categories. Not for
 * applications; it lives in this package only because it touches package-private fields.
 */
public final class AgentBridge {
    private AgentBridge() {}

    /** Installs the agent's backend; {@code onCategoryCreated} hears of every category made from now on. */
    public static void install(TrackEventBackend backend, Consumer<Category> onCategoryCreated) {
        TrackEvent.categoryListener = onCategoryCreated::accept;
        TrackEvent.backend = backend;
    }

    public static void setEnabled(Category category, boolean enabled) {
        category.enabled = enabled;
    }

    public static Collection<Category> categories() {
        return Category.all();
    }
}
