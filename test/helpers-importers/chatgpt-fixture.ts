// A ChatGPT export conversation in the real shape: a mapping tree with an edited (abandoned) branch.

export function branchedConversation(id: string, baseTime: number): Record<string, unknown> {
  const node = (nodeId: string, parent: string | null, children: string[], message: unknown) => ({
    id: nodeId,
    parent,
    children,
    message,
  });
  const msg = (
    msgId: string,
    role: string,
    parts: unknown[],
    t: number | null,
    extra: Record<string, unknown> = {},
  ) => ({
    id: msgId,
    author: { role, name: null, metadata: {} },
    create_time: t,
    update_time: null,
    content: { content_type: "text", parts },
    status: "finished_successfully",
    end_turn: true,
    weight: 1,
    metadata: extra,
    recipient: "all",
  });
  return {
    title: `Trip planning ${id}`,
    create_time: baseTime,
    update_time: baseTime + 600,
    mapping: {
      [`${id}-root`]: node(`${id}-root`, null, [`${id}-sys`], null),
      [`${id}-sys`]: node(`${id}-sys`, `${id}-root`, [`${id}-u1`], msg(`${id}-sys`, "system", [""], null)),
      [`${id}-u1`]: node(
        `${id}-u1`,
        `${id}-sys`,
        [`${id}-a1`],
        msg(`${id}-u1`, "user", ["Plan 3 days in Lisbon"], baseTime + 1),
      ),
      [`${id}-a1`]: node(
        `${id}-a1`,
        `${id}-u1`,
        [`${id}-u2-old`, `${id}-u2`],
        msg(`${id}-a1`, "assistant", ["Day 1: Alfama.", "Day 2: Belém."], baseTime + 2, {
          model_slug: "gpt-4o",
        }),
      ),
      // The abandoned branch: the user edited this question.
      [`${id}-u2-old`]: node(
        `${id}-u2-old`,
        `${id}-a1`,
        [`${id}-a2-old`],
        msg(`${id}-u2-old`, "user", ["And Porto?"], baseTime + 3),
      ),
      [`${id}-a2-old`]: node(
        `${id}-a2-old`,
        `${id}-u2-old`,
        [],
        msg(`${id}-a2-old`, "assistant", ["Porto is 3h away."], baseTime + 4, { model_slug: "gpt-4o" }),
      ),
      // The active branch.
      [`${id}-u2`]: node(
        `${id}-u2`,
        `${id}-a1`,
        [`${id}-hidden`],
        msg(`${id}-u2`, "user", ["And Sintra?"], baseTime + 5),
      ),
      [`${id}-hidden`]: node(
        `${id}-hidden`,
        `${id}-u2`,
        [`${id}-a2`],
        msg(`${id}-hidden`, "assistant", ["internal context"], baseTime + 6, {
          is_visually_hidden_from_conversation: true,
        }),
      ),
      [`${id}-a2`]: node(
        `${id}-a2`,
        `${id}-hidden`,
        [`${id}-empty`],
        msg(
          `${id}-a2`,
          "assistant",
          ["Sintra is a day trip.", { content_type: "image_asset_pointer" }],
          baseTime + 7,
          {
            model_slug: "gpt-4o-mini",
          },
        ),
      ),
      [`${id}-empty`]: node(
        `${id}-empty`,
        `${id}-a2`,
        [],
        msg(`${id}-empty`, "assistant", [""], baseTime + 8),
      ),
    },
    moderation_results: [],
    current_node: `${id}-empty`,
    conversation_id: id,
    id,
    default_model_slug: "gpt-4o",
  };
}
