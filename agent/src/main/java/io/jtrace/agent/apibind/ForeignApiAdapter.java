package io.jtrace.agent.apibind;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.AsyncTrack;
import io.jtrace.api.Category;
import io.jtrace.api.spi.EventData;
import io.jtrace.api.spi.TrackEventBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The agent's backend in another copy of the API. Only ever instantiated as defined by an
 * {@link AdapterLoader}, once per copy, where every {@code io.jtrace.api} name below is that copy's
 * class. It forwards each event to {@link Twins} with the twins of its category and async
 * track, so the agent records it as if the application had used the agent's own copy; it keeps each
 * category's mask equal to its twin's, so a disabled category stays one branch in the copy too.
 */
public final class ForeignApiAdapter implements TrackEventBackend, ForeignCopy, Consumer<Category> {
    private final Twins twins;
    /** The copy's categories with a twin: guarded by this, as every mask this adapter stores. */
    private final List<Category> linked = new ArrayList<>();
    /** What this adapter changes the copy's state with. */
    private final AgentBridge bridge = AgentBridge.open();
    /** Each thread's copy of the event being written: no allocation per event. */
    private final ThreadLocal<EventArgs> args = ThreadLocal.withInitial(EventArgs::new);

    public ForeignApiAdapter(Twins twins) {
        this.twins = twins;
    }

    @Override
    public void install() {
        bridge.install(this, this);
        // Categories the copy made before this: the listener above hears of the later ones.
        for (Category category : AgentBridge.categories()) {
            link(category);
        }
    }

    /** The copy made a category. */
    @Override
    public void accept(Category category) {
        link(category);
    }

    @Override
    public synchronized void refreshMasks() {
        for (Category category : linked) {
            bridge.setSessionMask(category, twins.mask(AgentBridge.twin(category)));
        }
    }

    /**
     * Gives {@code category} its twin and its twin's mask. The twin is made outside this adapter's lock:
     * making it takes the agent's category lock, and the agent calls {@link #refreshMasks} after
     * releasing that lock; never holding both keeps the two from deadlocking. The mask is read under
     * this lock, after the category is listed: a refresh after the agent's mask change either sees the
     * category listed or runs before this read, which then sees the new mask (volatile).
     */
    private Object link(Category category) {
        Object twin = twins.category(category.name());
        synchronized (this) {
            if (AgentBridge.twin(category) == null) {
                bridge.twin(category, twin);
                linked.add(category);
            }
            bridge.setSessionMask(category, twins.mask(twin));
        }
        return twin;
    }

    private Object twin(Category category) {
        Object twin = AgentBridge.twin(category);
        return twin != null ? twin : link(category);
    }

    private Object twin(AsyncTrack track) {
        Object twin = AgentBridge.twin(track);
        if (twin == null) {
            twin = twins.asyncTrack(track.name(), track.uuid());
            bridge.twin(track, twin);
        }
        return twin;
    }

    @Override
    public void begin(Category category, String name, long timestamp) {
        twins.begin(twin(category), name, timestamp);
    }

    @Override
    public void end(Category category, long timestamp) {
        twins.end(twin(category), timestamp);
    }

    @Override
    public void instant(Category category, String name, long timestamp) {
        twins.instant(twin(category), name, timestamp);
    }

    @Override
    public void counter(Category category, String name, long value, long timestamp) {
        twins.counter(twin(category), name, value, timestamp);
    }

    @Override
    public void counter(Category category, String name, double value, long timestamp) {
        twins.counter(twin(category), name, value, timestamp);
    }

    @Override
    public void event(int type, Category category, String name, long timestamp, EventData data) {
        EventArgs copy = args.get();
        AsyncTrack track = data.track();
        copy.reset(data.droppedArgs(), track == null ? null : twin(track));
        for (int i = 0; i < data.argCount(); i++) {
            int kind = data.argKind(i);
            copy.arg(data.argName(i), kind,
                    kind == EventData.KIND_LONG || kind == EventData.KIND_BOOLEAN ? data.argLong(i) : 0,
                    kind == EventData.KIND_DOUBLE ? data.argDouble(i) : 0,
                    kind == EventData.KIND_STRING ? data.argString(i) : null);
        }
        for (int i = 0; i < data.flowCount(); i++) {
            copy.flow(data.flowId(i), data.flowTerminating(i));
        }
        twins.event(type, twin(category), name, timestamp, copy);
    }
}
