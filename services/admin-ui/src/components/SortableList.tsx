import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DraggableAttributes,
  type DraggableSyntheticListeners,
} from "@dnd-kit/core";
import { arrayMove, SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import type { ReactNode } from "react";

/** What an item spreads on its drag handle: pointer drag, and space/arrows/space from the keyboard. */
export interface DragHandle {
  attributes: DraggableAttributes;
  listeners: DraggableSyntheticListeners;
}

function SortableItem({ id, children }: { id: string; children: (handle: DragHandle) => ReactNode }) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({ id });
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={isDragging ? "dragging" : undefined}
    >
      {children({ attributes, listeners })}
    </li>
  );
}

/** An ordered list whose items are dragged by a handle; `onReorder` gets the ids in their new order. */
export function SortableList<T>({
  items,
  idOf,
  nameOf,
  onReorder,
  disabled,
  className,
  children,
}: {
  items: T[];
  idOf: (item: T) => string;
  /** How announcements to screen readers name an item while it moves. */
  nameOf: (item: T) => string;
  onReorder: (ids: string[]) => void;
  disabled?: boolean;
  className?: string;
  children: (item: T, index: number, handle: DragHandle) => ReactNode;
}) {
  // A few pixels of movement before a drag starts, so clicks on the handle stay clicks.
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const ids = items.map(idOf);
  const name = (id: string | number) => {
    const item = items[ids.indexOf(String(id))];
    return item === undefined ? String(id) : nameOf(item);
  };
  const position = (id: string | number) => `position ${ids.indexOf(String(id)) + 1} of ${ids.length}`;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${name(active.id)} at ${position(active.id)}.`,
    onDragOver: ({ active, over }) => (over ? `${name(active.id)} is now at ${position(over.id)}.` : `${name(active.id)} is off the list.`),
    onDragEnd: ({ active, over }) => (over ? `${name(active.id)} dropped at ${position(over.id)}.` : `${name(active.id)} put back.`),
    onDragCancel: ({ active }) => `Moving ${name(active.id)} was cancelled; it is back where it was.`,
  };
  const dragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    onReorder(arrayMove(ids, ids.indexOf(String(active.id)), ids.indexOf(String(over.id))));
  };
  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={dragEnd} accessibility={{ announcements }}>
      <SortableContext items={ids} strategy={verticalListSortingStrategy} disabled={disabled}>
        <ol className={className}>
          {items.map((item, index) => (
            <SortableItem key={ids[index]} id={ids[index]!}>
              {(handle) => children(item, index, handle)}
            </SortableItem>
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}
