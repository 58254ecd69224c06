package io.jtrace.agent.apibind;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.TrackEvent;
import io.jtrace.api.spi.TrackEventBackend;
import java.lang.instrument.Instrumentation;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's binder of the API's copies: each copy of {@code io.jtrace.api.TrackEvent} calls
 * {@link #bind} as it initializes (through the system class path, by name: see the API's
 * {@code AgentLookup}), and a late attach binds those already loaded ({@link #bindLoaded}). The agent's
 * own copy is served directly by its data source; every other one gets a {@link ForeignApiAdapter}.
 */
public final class ApiCopies {
    private static final Logger LOG = LoggerFactory.getLogger(ApiCopies.class);
    private static final String TRACK_EVENT = TrackEvent.class.getName();
    private static final Twins TWINS = new Twins();
    /**
     * The adapters installed, one per copy: the agent's mask changes are passed to each. Weakly: the
     * copy's {@code TrackEvent} holds its adapter, and the adapter its copy's class loader, which must
     * stay collectable when its application is undeployed.
     */
    private static final CopyOnWriteArrayList<WeakReference<ForeignCopy>> ADAPTERS = new CopyOnWriteArrayList<>();
    /** Copies bound, by their TrackEvent class (weakly: an undeployed web application's loader can go). */
    private static final Map<Class<?>, Boolean> BOUND = new WeakHashMap<>();

    private ApiCopies() {}

    /**
     * Binds the copy of the API that {@code trackEventClass} belongs to. Called by that copy's static
     * initializer, on the application's thread: never throws, and leaves the copy a no-op if it cannot
     * be bound (a copy of another API version).
     */
    public static void bind(Class<?> trackEventClass) {
        if (trackEventClass == TrackEvent.class || !TRACK_EVENT.equals(trackEventClass.getName())) {
            return; // the agent's own copy: its data source installs itself
        }
        synchronized (BOUND) {
            if (BOUND.containsKey(trackEventClass)) {
                return;
            }
            BOUND.put(trackEventClass, Boolean.TRUE);
        }
        ClassLoader loader = trackEventClass.getClassLoader();
        try {
            int version = Class.forName(AgentBridge.class.getName(), true, loader).getField("VERSION").getInt(null);
            if (version != AgentBridge.VERSION) {
                LOG.warn("jtrace: the copy of jtrace-api in class loader {} is of API version {}, this agent's is {};"
                        + " its events are not recorded (use the jtrace-api of this agent's release)",
                        loader, version, AgentBridge.VERSION);
                return;
            }
            Class<?> adapterClass = new AdapterLoader(loader, ApiCopies.class.getClassLoader()).loadClass(AdapterLoader.ADAPTER);
            ForeignCopy adapter = (ForeignCopy) adapterClass.getConstructor(Twins.class).newInstance(TWINS);
            ADAPTERS.add(new WeakReference<>(adapter));
            adapter.install();
            LOG.debug("jtrace: bound the copy of jtrace-api in class loader {}", loader);
        } catch (NoSuchFieldException e) {
            LOG.warn("jtrace: the copy of jtrace-api in class loader {} is older than this agent's (API version {});"
                    + " its events are not recorded", loader, AgentBridge.VERSION);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.warn("jtrace: could not bind the copy of jtrace-api in class loader {}; its events are not recorded",
                    loader, e);
        }
    }

    /** At a late attach: binds the copies the application loaded before the agent came. */
    public static void bindLoaded(Instrumentation instrumentation) {
        for (Class<?> c : instrumentation.getAllLoadedClasses()) {
            if (TRACK_EVENT.equals(c.getName())) {
                bind(c);
            }
        }
    }

    /** The agent's backend, and its bridge into its own copy, for every copy bound now or later. */
    public static void serve(TrackEventBackend backend, AgentBridge bridge) {
        TWINS.serve(backend, bridge);
    }

    /** After the agent changed its categories' masks (outside its category lock): each copy follows. */
    public static void refreshMasks() {
        for (WeakReference<ForeignCopy> ref : ADAPTERS) {
            ForeignCopy adapter = ref.get();
            if (adapter == null) {
                ADAPTERS.remove(ref);
            } else {
                adapter.refreshMasks();
            }
        }
    }
}
