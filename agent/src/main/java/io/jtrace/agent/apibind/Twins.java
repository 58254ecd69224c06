package io.jtrace.agent.apibind;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.Category;
import io.jtrace.api.spi.TrackEventBackend;

/**
 * The agent as another copy of the API's adapter sees it: every API object passes as {@code Object}
 * (in the adapter's class loader {@code io.jtrace.api} names the other copy's classes, so no method here
 * may name one). Twins are the agent's own categories and async tracks.
 */
public final class Twins {
    /**
     * The agent's backend. Volatile: stored when the data source is made, before any session can enable
     * a category; an event reaches here only through a category some session enabled.
     */
    private volatile TrackEventBackend backend;
    /** The agent's bridge into its own copy: makes async track twins. Set before {@link #backend}. */
    private volatile AgentBridge bridge;

    void serve(TrackEventBackend backend, AgentBridge bridge) {
        this.bridge = bridge;
        this.backend = backend;
    }

    /** The agent's category of that name (made if new, which sets its mask). */
    public Object category(String name) {
        return Category.of(name);
    }

    public int mask(Object category) {
        return AgentBridge.sessionMask((Category) category);
    }

    public Object asyncTrack(String name, long uuid) {
        return bridge.asyncTrack(name, uuid);
    }

    public void begin(Object category, String name, long timestamp) {
        backend.begin((Category) category, name, timestamp);
    }

    public void end(Object category, long timestamp) {
        backend.end((Category) category, timestamp);
    }

    public void instant(Object category, String name, long timestamp) {
        backend.instant((Category) category, name, timestamp);
    }

    public void counter(Object category, String name, long value, long timestamp) {
        backend.counter((Category) category, name, value, timestamp);
    }

    public void counter(Object category, String name, double value, long timestamp) {
        backend.counter((Category) category, name, value, timestamp);
    }

    public void event(int type, Object category, String name, long timestamp, EventArgs args) {
        backend.event(type, (Category) category, name, timestamp, args);
    }
}
