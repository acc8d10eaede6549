// Ant Design (antd): the fields of one <Form>, labelled by Form.Item as antd's docs write forms
// (a <label for> pointing at the control's id), committed from each component's own onChange.
import { createRoot } from "react-dom/client";
import { AutoComplete, Checkbox, DatePicker, Form, Radio, Select, Slider, Switch, Typography } from "antd";
import dayjs from "dayjs";
import { useState } from "react";

const COUNTRIES = ["Germany", "France", "Italy", "Spain", "Netherlands"];
const EXTRAS = ["Gift wrap", "Insurance", "Greeting card", "Express handling"];
const CUSTOMERS = ["Adventure Works", "Contoso Ltd", "Fabrikam Inc", "Northwind Health", "Northwind Traders", "Tailspin Toys"];
const asOptions = (labels) => labels.map((l) => ({ value: l, label: l }));

function Supplier(props) {
  // AutoComplete's docs: options computed for what is typed. Form.Item hands it id, value and
  // onChange (the typed text); choosing an option is onSelect.
  const [options, setOptions] = useState([]);
  return (
    <AutoComplete
      {...props}
      options={options}
      style={{ width: 300 }}
      placeholder="Type a supplier"
      onSearch={(q) => setOptions(q ? asOptions(CUSTOMERS.filter((c) => c.toLowerCase().includes(q.toLowerCase()))) : [])}
      onSelect={(v) => reportCommit("supplier", v)}
    />
  );
}

function App() {
  return (
    <div style={{ margin: 24, maxWidth: 520 }}>
      <Typography.Title level={3}>Order</Typography.Title>
      <Form layout="vertical" name="order" initialValues={{ newsletter: true, billing: "Yearly", volume: 50, price: [10, 90], carrier: "Post" }}>
        <Form.Item label="Country" name="country">
          <Select style={{ width: 300 }} placeholder="Choose a country" options={asOptions(COUNTRIES)}
            onChange={(v) => reportCommit("country", v)} />
        </Form.Item>
        <Form.Item label="Extras" name="extras">
          <Select mode="multiple" style={{ width: 300 }} placeholder="Choose extras" options={asOptions(EXTRAS)}
            onChange={(v) => reportCommit("extras", v)} />
        </Form.Item>
        <Form.Item label="Customer" name="customer">
          <Select showSearch style={{ width: 300 }} placeholder="Search a customer" options={asOptions(CUSTOMERS)}
            optionFilterProp="label" onChange={(v) => reportCommit("customer", v)} />
        </Form.Item>
        <Form.Item label="Supplier" name="supplier">
          <Supplier />
        </Form.Item>
        <Form.Item label="Carrier" name="carrier">
          <Select disabled style={{ width: 300 }} options={asOptions(["Post", "Courier"])}
            onChange={(v) => reportCommit("carrier", v)} />
        </Form.Item>
        <Form.Item name="express" valuePropName="checked">
          <Checkbox onChange={(e) => reportCommit("express", e.target.checked)}>Express shipping</Checkbox>
        </Form.Item>
        <Form.Item label="Notifications" name="notifications" valuePropName="checked">
          <Switch onChange={(checked) => reportCommit("notifications", checked)} />
        </Form.Item>
        <Form.Item label="Billing" name="billing">
          <Radio.Group onChange={(e) => reportCommit("billing", e.target.value)}
            options={[{ value: "Monthly", label: "Monthly" }, { value: "Yearly", label: "Yearly" }, { value: "Never", label: "Never", disabled: true }]} />
        </Form.Item>
        <Form.Item label="Volume" name="volume">
          <Slider min={0} max={100} step={5} onChange={(v) => reportCommit("volume", v)} />
        </Form.Item>
        <Form.Item label="Price range" name="price">
          <Slider range min={0} max={100} step={5} onChange={(v) => reportCommit("price", v)} />
        </Form.Item>
        <Form.Item label="Ship date" name="shipdate">
          <DatePicker minDate={dayjs("2026-01-01")} maxDate={dayjs("2028-12-31")}
            onChange={(d) => reportCommit("shipdate", d ? d.format("YYYY-MM-DD") : null)} />
        </Form.Item>
      </Form>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
