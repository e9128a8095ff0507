import { h } from "../h";
import type { VNode } from "../dom";
import { Button } from "../components";
import { InventoryService, RESERVATION_TTL_MS, type StockLevel } from "@services/inventory";

function StockRow({ level }: { level: StockLevel }) {
  const available = level.onHand - level.reserved;
  return (
    <tr class={available <= 0 ? "out-of-stock" : available < 5 ? "low-stock" : ""}>
      <td>{level.sku}</td>
      <td>{level.onHand}</td>
      <td>{level.reserved}</td>
      <td>{available}</td>
    </tr>
  );
}

export async function renderAdminPage(inventory: InventoryService): Promise<VNode> {
  const levels = await inventory.levels();
  return (
    <main class="admin">
      <h1>Inventory</h1>
      <p>Reservations expire after {Math.round(RESERVATION_TTL_MS / 60_000)} minutes.</p>
      <table>
        <thead>
          <tr>
            <th>SKU</th>
            <th>On hand</th>
            <th>Reserved</th>
            <th>Available</th>
          </tr>
        </thead>
        <tbody>
          {levels.map((level) => (
            <StockRow level={level} />
          ))}
        </tbody>
      </table>
      <form method="post" action="/admin/release-expired">
        <Button label="Release expired reservations" type="submit" variant="secondary" />
      </form>
    </main>
  );
}

export default renderAdminPage;
