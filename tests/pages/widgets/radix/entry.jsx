// Radix primitives (unstyled: the styles are index.html's), each labelled as Radix's docs show:
// <Label htmlFor> for the button-drawn Select, Checkbox and Switch, a <label htmlFor> per radio,
// aria-label on a Slider's thumb. Committed from each primitive's onValueChange / onCheckedChange.
import { createRoot } from "react-dom/client";
import * as Checkbox from "@radix-ui/react-checkbox";
import * as Label from "@radix-ui/react-label";
import * as RadioGroup from "@radix-ui/react-radio-group";
import * as Select from "@radix-ui/react-select";
import * as Slider from "@radix-ui/react-slider";
import * as Switch from "@radix-ui/react-switch";

const COUNTRIES = ["Germany", "France", "Italy", "Spain", "Netherlands"];

function SelectField({ id, label, options, placeholder, disabled, defaultValue }) {
  return (
    <div className="row">
      <Label.Root className="label" htmlFor={id}>{label}</Label.Root>
      <Select.Root disabled={disabled} defaultValue={defaultValue} name={id} onValueChange={(v) => reportCommit(id, v)}>
        <Select.Trigger className="trigger" id={id}>
          <Select.Value placeholder={placeholder} />
          <Select.Icon className="icon">▾</Select.Icon>
        </Select.Trigger>
        <Select.Portal>
          <Select.Content className="content" position="popper" sideOffset={4}>
            <Select.Viewport>
              {options.map((o) => (
                <Select.Item className="item" key={o} value={o}>
                  <Select.ItemText>{o}</Select.ItemText>
                  <Select.ItemIndicator className="indicator">✓</Select.ItemIndicator>
                </Select.Item>
              ))}
            </Select.Viewport>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
    </div>
  );
}

function CheckboxField({ id, label, defaultChecked }) {
  return (
    <div className="row inline">
      <Checkbox.Root className="checkbox" id={id} defaultChecked={defaultChecked} onCheckedChange={(c) => reportCommit(id, c === true)}>
        <Checkbox.Indicator className="indicator">✓</Checkbox.Indicator>
      </Checkbox.Root>
      <Label.Root className="label" htmlFor={id}>{label}</Label.Root>
    </div>
  );
}

function App() {
  return (
    <form className="form" onSubmit={(e) => e.preventDefault()}>
      <h1>Order</h1>
      <SelectField id="country" label="Country" options={COUNTRIES} placeholder="Choose a country" />
      <SelectField id="carrier" label="Carrier" options={["Post", "Courier"]} defaultValue="Post" disabled />
      <CheckboxField id="express" label="Express shipping" />
      <CheckboxField id="newsletter" label="Newsletter" defaultChecked />
      <div className="row inline">
        <Label.Root className="label" htmlFor="notifications">Notifications</Label.Root>
        <Switch.Root className="switch" id="notifications" onCheckedChange={(c) => reportCommit("notifications", c)}>
          <Switch.Thumb className="switch-thumb" />
        </Switch.Root>
      </div>
      <div className="row">
        <span className="label" id="billing-label">Billing</span>
        <RadioGroup.Root className="radios" defaultValue="Yearly" aria-labelledby="billing-label"
          onValueChange={(v) => reportCommit("billing", v)}>
          {["Monthly", "Yearly", "Never"].map((v) => (
            <div className="inline" key={v}>
              <RadioGroup.Item className="radio" value={v} id={`billing-${v}`} disabled={v === "Never"}>
                <RadioGroup.Indicator className="radio-dot" />
              </RadioGroup.Item>
              <label htmlFor={`billing-${v}`}>{v}</label>
            </div>
          ))}
        </RadioGroup.Root>
      </div>
      <div className="row">
        <span className="label">Volume</span>
        <Slider.Root className="slider" defaultValue={[50]} min={0} max={100} step={5}
          onValueChange={(v) => reportCommit("volume", v[0])}>
          <Slider.Track className="track"><Slider.Range className="range" /></Slider.Track>
          <Slider.Thumb className="thumb" aria-label="Volume" />
        </Slider.Root>
      </div>
      <div className="row">
        <span className="label">Price range</span>
        <Slider.Root className="slider" defaultValue={[10, 90]} min={0} max={100} step={1} minStepsBetweenThumbs={1}
          onValueChange={(v) => reportCommit("price", v)}>
          <Slider.Track className="track"><Slider.Range className="range" /></Slider.Track>
          <Slider.Thumb className="thumb" aria-label="Minimum price" />
          <Slider.Thumb className="thumb" aria-label="Maximum price" />
        </Slider.Root>
      </div>
    </form>
  );
}

createRoot(document.getElementById("root")).render(<App />);
