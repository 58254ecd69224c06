package io.jtrace.api;

import java.util.Collection;
import java.util.Collections;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A trace event category. Keep the instance in a static final field: checking whether it is enabled is
 * one volatile read, the whole cost of a disabled trace point.
 *
 * <pre>{@code
 * static final Category DB = Category.of("db");
 * ...
 * try (var s = TrackEvent.slice(DB, "query")) { ... }
 * }</pre>
 */
public final class Category {
    private static final ConcurrentMap<String, Category> REGISTRY = new ConcurrentHashMap<>();

    private final String name;
    /**
     * Set by the tracing agent when a session enables or disables the category. Volatile so that a
     * change reaches every thread's next check without a lock; a plain load on x86 and ARM's LDAR.
     */
    volatile boolean enabled;
    /** The sessions that record this category, a bit per session slot; set before {@link #enabled}. */
    volatile int sessionMask;
    /**
     * The agent's own copy of this category, when this copy of the API is not the one the agent was
     * built with (an application's class loader loaded its own): set by the agent, once per category.
     * Plain: every writer stores the same instance, and a reader that sees null asks the agent again.
     */
    Object twin;
    /** What {@code TrackEvent.slice} returns: its close() ends the thread's innermost slice of this category. */
    final Slice closer = () -> TrackEvent.end(this);

    private Category(String name) {
        this.name = name;
    }

    /** The category named {@code name}; the same instance for the same name, for the life of the JVM. */
    public static Category of(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a category needs a non-empty name");
        }
        Category existing = REGISTRY.get(name);
        if (existing != null) {
            return existing;
        }
        Category created = new Category(name);
        existing = REGISTRY.putIfAbsent(name, created);
        if (existing != null) {
            return existing;
        }
        CategoryListener listener = TrackEvent.categoryListener;
        if (listener != null) {
            listener.categoryCreated(created);
        }
        return created;
    }

    public String name() {
        return name;
    }

    public boolean isEnabled() {
        return enabled;
    }

    static Collection<Category> all() {
        return Collections.unmodifiableCollection(REGISTRY.values());
    }

    @Override
    public String toString() {
        return name;
    }
}
