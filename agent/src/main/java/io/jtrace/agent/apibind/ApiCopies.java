package io.jtrace.agent.apibind;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.TrackEvent;
import io.jtrace.api.spi.TrackEventBackend;
import java.lang.instrument.Instrumentation;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
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
    private static final String TRACK_EVENT = TrackEvent.class.getName();
    private static final Twins TWINS = new Twins();
    /**
     * The adapters installed, one per copy: the agent's mask changes are passed to each. Weakly: the
     * copy's {@code TrackEvent} holds its adapter, and the adapter its copy's class loader, which must
     * stay collectable when its application is undeployed.
     */
    private static final CopyOnWriteArrayList<WeakReference<ForeignCopy>> ADAPTERS = new CopyOnWriteArrayList<>();
    /**
     * Copies heard of, by their TrackEvent class, and whether each is bound yet (weakly: an undeployed
     * web application's loader can go). Guards {@link #serving}.
     */
    private static final Map<Class<?>, Boolean> COPIES = new WeakHashMap<>();
    /**
     * Whether the agent's data source exists. Until it does, copies are only noted: jtrace.jar may be
     * on an application's class path without the agent running (the copies announce themselves all the
     * same), and nothing here may even start the agent's logging before the agent has configured it.
     */
    private static boolean serving;

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
        synchronized (COPIES) {
            if (COPIES.containsKey(trackEventClass)) {
                return;
            }
            COPIES.put(trackEventClass, serving);
            if (!serving) {
                return; // bound when the agent's data source comes (serve)
            }
        }
        install(trackEventClass);
    }

    private static void install(Class<?> trackEventClass) {
        ClassLoader loader = trackEventClass.getClassLoader();
        try {
            int version = Class.forName(AgentBridge.class.getName(), true, loader).getField("VERSION").getInt(null);
            if (version != AgentBridge.VERSION) {
                log().warn("jtrace: the copy of jtrace-api in class loader {} is of API version {}, this agent's is {};"
                        + " its events are not recorded (use the jtrace-api of this agent's release)",
                        loader, version, AgentBridge.VERSION);
                return;
            }
            Class<?> adapterClass = new AdapterLoader(loader, ApiCopies.class.getClassLoader()).loadClass(AdapterLoader.ADAPTER);
            ForeignCopy adapter = (ForeignCopy) adapterClass.getConstructor(Twins.class).newInstance(TWINS);
            ADAPTERS.add(new WeakReference<>(adapter));
            adapter.install();
            log().debug("jtrace: bound the copy of jtrace-api in class loader {}", loader);
        } catch (NoSuchFieldException e) {
            log().warn("jtrace: the copy of jtrace-api in class loader {} is older than this agent's (API version {});"
                    + " its events are not recorded", loader, AgentBridge.VERSION);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log().warn("jtrace: could not bind the copy of jtrace-api in class loader {}; its events are not recorded",
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
        List<Class<?>> waiting = new ArrayList<>();
        synchronized (COPIES) {
            serving = true;
            for (Map.Entry<Class<?>, Boolean> e : COPIES.entrySet()) {
                if (!e.getValue()) {
                    e.setValue(Boolean.TRUE);
                    waiting.add(e.getKey());
                }
            }
        }
        for (Class<?> copy : waiting) {
            install(copy);
        }
    }

    /** Looked up when needed, never at class initialization (see {@link #serving}). */
    private static Logger log() {
        return LoggerFactory.getLogger(ApiCopies.class);
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
