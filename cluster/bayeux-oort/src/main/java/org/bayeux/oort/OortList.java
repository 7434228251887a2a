package org.bayeux.oort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A list replicated across the cluster in parts ({@link OortObject}): each node adds and removes elements of its own
 * part only, each change is sent as one element, and {@link #getMerged} (concatenation) or {@link #merge} with
 * {@link OortMergers#unionLists()} give the cluster-wide view.
 *
 * <p>Elements are JSON values (a peer reads integers as {@code Long}). Parts are immutable snapshots: each change
 * copies this node's part, which {@code oort.maxMessageBytes} keeps small.</p>
 *
 * @param <E> the elements' type
 */
public final class OortList<E> extends OortObject<List<E>> {
    private OortList(Oort oort, String name) {
        super(oort, name, List.of());
    }

    /**
     * @param oort the node
     * @param name the list's name, the same on every node: letters, digits, '-', '_' or '.'
     * @param <E> the elements' type
     * @return the list, with an empty part on this node, registered on the node
     */
    public static <E> OortList<E> create(Oort oort, String name) {
        return new OortList<>(oort, name);
    }

    /**
     * Appends an element to this node's part and sends the change to every joined member.
     *
     * @param element the element, JSON-serialisable
     * @throws OortMessageTooLargeException if the part would be larger than {@code oort.maxMessageBytes}: unchanged
     */
    public void add(E element) {
        Objects.requireNonNull(element, "element");
        Map<String, Object> delta = new HashMap<>();
        delta.put("op", "add");
        delta.put("value", element);
        update(part -> with(part, element), delta);
    }

    /**
     * Removes the first equal element from this node's part and sends the change to every joined member.
     *
     * @param element the element
     * @return true if this node's part had it (else nothing is sent)
     */
    public boolean remove(E element) {
        if (!getLocal().contains(element)) {
            return false;
        }
        Map<String, Object> delta = new HashMap<>();
        delta.put("op", "remove");
        delta.put("value", element);
        update(part -> without(part, element), delta);
        return true;
    }

    /** @return every part this node knows, concatenated, this node's first */
    public List<E> getMerged() {
        return merge(OortMergers.concatLists());
    }

    @Override
    @SuppressWarnings("unchecked")
    protected List<E> apply(List<E> part, Map<String, Object> delta) {
        Object op = delta.get("op");
        if ("add".equals(op)) {
            return with(part, (E) delta.get("value"));
        }
        if ("remove".equals(op)) {
            return without(part, delta.get("value"));
        }
        return super.apply(part, delta);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected List<E> fromJson(Object json) {
        if (!(json instanceof List<?> list)) {
            throw new IllegalArgumentException("An Oort list's part is a JSON array");
        }
        return Collections.unmodifiableList(new ArrayList<>((List<E>) list));
    }

    private static <E> List<E> with(List<E> part, E element) {
        List<E> copy = new ArrayList<>(part);
        copy.add(element);
        return Collections.unmodifiableList(copy);
    }

    private static <E> List<E> without(List<E> part, Object element) {
        List<E> copy = new ArrayList<>(part);
        copy.remove(element);
        return Collections.unmodifiableList(copy);
    }
}
